import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { createOwner, signedIn } from '../helpers/dashboard-client.ts';

// The dashboard's Channels page: each channel masked, its state, and its
// delivery log with the last error, so a failing channel is seen.

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

test('the channels page shows each channel masked, a failing one as failing, and its messages with their last error', async () => {
  const { email, accountId } = await createOwner(t.app);
  const client = await signedIn(t.app, email);
  assert.match((await client.get('/api-access')).body, /<a href="\/channels">channels<\/a>/);
  const channelId = '0f8c1a6e-0000-4000-8000-00000000c0de';
  await t.db.query(
    `INSERT INTO channels (id, account_id, name, type, url, state, created_at)
     VALUES ($1, $2, 'shop <team>', 'slack', 'slack://T0123ABCD/B0456EFGH/slackSecret123', 'failing', now())`,
    [channelId, accountId],
  );
  await t.db.query(
    `INSERT INTO notification_outbox (id, account_id, channel, channel_id, event, created_at, next_attempt_at, status, attempts, last_error)
     VALUES (gen_random_uuid(), $1, 'chat', $2, 'monitor.failing', now(), now(), 'failed', 1, 'the service answered 403: invalid_token')`,
    [accountId, channelId],
  );
  const page = await client.get('/channels');
  assert.equal(page.statusCode, 200);
  assert.ok(page.body.includes('shop &lt;team&gt;'), 'the name is escaped');
  assert.ok(page.body.includes('slack://T012…/B045…/***'));
  assert.ok(!page.body.includes('slackSecret123'));
  assert.match(page.body, /state-failing">failing</);
  assert.match(page.body, /monitor\.failing[\s\S]*state-failed">failed<[\s\S]*the service answered 403: invalid_token/);
});
