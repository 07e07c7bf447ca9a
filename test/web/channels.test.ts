import { after, before, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { createOwner, signedIn, type DashboardClient } from '../helpers/dashboard-client.ts';
import { insertMonitorRow } from '../helpers/monitor-rows.ts';
import { startServiceReceivers } from '../helpers/service-receivers.ts';

// The dashboard's Channels page: the owner adds a channel by pasting its URL
// (a refusal is the form again with the API's words), sends it a test message
// and sees what the service answered, deletes it, and sees each channel masked,
// its state and its delivery log; a monitor's edit page chooses channels.

const CHANNEL_LIMIT = 2;
const SLACK = 'slack://T0123ABCD/B0456EFGH/slackSecret123';
const DISCORD = 'discord://112233445566/discordSecret_1';

const services = await startServiceReceivers();
let t: TestApp;
before(async () => {
  t = await startTestApp({
    env: { PAGEWATCH_CHANNEL_HOST_OVERRIDES: services.overrides },
    plans: { pro: { channels: CHANNEL_LIMIT } },
  });
});
after(async () => {
  await t.close();
  await services.close();
});
beforeEach(() => services.reset());

async function owner(plan: 'pro' | 'free' = 'pro'): Promise<{ client: DashboardClient; accountId: string }> {
  const { email, accountId } = await createOwner(t.app, plan);
  const client = await signedIn(t.app, email);
  await client.get('/channels');
  return { client, accountId };
}

/** Adds a channel through the form; returns its id, read from the page. */
async function addChannel(client: DashboardClient, name: string, url: string): Promise<string> {
  const res = await client.post('/channels', { name, url });
  assert.equal(res.statusCode, 303, res.body);
  const page = await client.get('/channels');
  const ids = [...page.body.matchAll(/action="\/channels\/([0-9a-f-]{36})\/test"/g)].map((m) => m[1]!);
  const id = ids.find((candidate) => page.body.includes(`id="channel-${candidate}">${name} `));
  assert.ok(id, 'the new channel is on the page');
  return id;
}

test('the channels page shows each channel masked, a failing one as failing, and its messages with their last error', async () => {
  const { client, accountId } = await owner();
  assert.match((await client.get('/api-access')).body, /<a href="\/channels">channels<\/a>/);
  const channelId = '0f8c1a6e-0000-4000-8000-00000000c0de';
  await t.db.query(
    `INSERT INTO channels (id, account_id, name, type, url, state, created_at)
     VALUES ($1, $2, 'shop <team>', 'slack', $3, 'failing', now())`,
    [channelId, accountId, SLACK],
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
  assert.match(page.body, /its alerts are not sent until a test message goes through/);
  assert.match(page.body, /monitor\.failing[\s\S]*state-failed">failed<[\s\S]*the service answered 403: invalid_token/);
});

test('a pasted channel URL makes a channel, shown masked, never with its secret', async () => {
  const { client } = await owner();
  const page = await client.get('/channels');
  assert.match(page.body, /0 of 2 channels in use/);
  assert.match(page.body, /<form method="post" action="\/channels"/);
  const res = await client.post('/channels', { name: 'team', url: SLACK });
  assert.equal(res.statusCode, 303);
  assert.equal(res.headers.location, '/channels?notice=channel-created');
  const listed = await client.get('/channels?notice=channel-created');
  assert.match(listed.body, /The channel is added/);
  assert.match(listed.body, /1 of 2 channels in use/);
  assert.ok(listed.body.includes('slack://T012…/B045…/***'));
  assert.ok(!listed.body.includes('slackSecret123'), 'the secret is not on the page');
  assert.match(listed.body, /No messages yet/);
});

test('a URL of no known form is the form again with the API’s message, what was typed kept', async () => {
  const { client } = await owner();
  const res = await client.post('/channels', { name: 'team', url: 'slack://only-one-part' });
  assert.equal(res.statusCode, 422);
  assert.match(
    res.body,
    /role="alert">not a channel URL\. url: slack:\/\/TokenA\/TokenB\/TokenC \(the parts of an incoming webhook URL\)</,
  );
  assert.match(res.body, /id="channel-name" name="name" maxlength="100" required value="team"/);
  assert.match(res.body, /value="slack:\/\/only-one-part"/);
  const empty = await client.post('/channels', { name: '', url: SLACK });
  assert.equal(empty.statusCode, 422, 'the API’s schema refuses an empty name');
  assert.match(empty.body, /role="alert">[^<]*name/);
});

test('past the plan’s channels the form is gone, and a post anyway is refused with the API’s allowance message', async () => {
  const { client, accountId } = await owner();
  await addChannel(client, 'one', SLACK);
  await addChannel(client, 'two', DISCORD);
  const full = await client.get('/channels');
  assert.match(full.body, /Channel limit reached/);
  assert.doesNotMatch(full.body, /<form method="post" action="\/channels"/);
  const refused = await client.post('/channels', { name: 'three', url: SLACK });
  assert.equal(refused.statusCode, 409);
  assert.match(refused.body, /role="alert">at most 2 channels per account; delete one first</);
  const rows = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM channels WHERE account_id = $1', [accountId]);
  assert.equal(rows[0]!.n, 2);
});

test('an account whose plan has no channels is told so, and a post is refused', async () => {
  const { client } = await owner('free');
  const page = await client.get('/channels');
  assert.match(page.body, /includes no channels/);
  assert.doesNotMatch(page.body, /action="\/channels"/);
  assert.equal((await client.post('/channels', { name: 'x', url: SLACK })).statusCode, 409);
});

test('a test message is sent at once and the page shows what the service answered', async () => {
  const { client } = await owner();
  const id = await addChannel(client, 'team', 'tgram://123456:AAHtelegramSecret/-100200300');
  const res = await client.post(`/channels/${id}/test`);
  assert.equal(res.statusCode, 200);
  assert.match(res.body, /The test message went through \(HTTP 200\)/);
  assert.ok(res.body.includes('<pre class="answer">{&quot;ok&quot;:true,&quot;result&quot;:{&quot;message_id&quot;:1}}</pre>'));
  assert.equal(services.received.length, 1);
  assert.equal(services.received[0]!.service, 'telegram');
});

test('a test message the service refuses shows its status and its words, escaped, and a failing channel that takes one is active again', async () => {
  const { client, accountId } = await owner();
  const id = await addChannel(client, 'team', DISCORD);
  services.answer({ status: 404, headers: { 'content-type': 'application/json' }, body: '{"message": "<b>Unknown Webhook</b>"}' });
  const refused = await client.post(`/channels/${id}/test`);
  assert.equal(refused.statusCode, 200);
  assert.match(refused.body, /The test message did not go through \(HTTP 404\)/);
  assert.match(refused.body, /the service answered 404/);
  assert.ok(refused.body.includes('&lt;b&gt;Unknown Webhook&lt;/b&gt;'), 'the answer is text, not markup');
  assert.ok(!refused.body.includes('<b>Unknown Webhook</b>'));

  await t.db.query("UPDATE channels SET state = 'failing' WHERE id = $1 AND account_id = $2", [id, accountId]);
  assert.match((await client.get('/channels')).body, /state-failing">failing</);
  const taken = await client.post(`/channels/${id}/test`);
  assert.match(taken.body, /The test message went through \(HTTP 204\)/);
  assert.match(taken.body, /state-active">active</);
});

test('deleting a channel asks first, then removes it from the page and from the monitors that chose it', async () => {
  const { client, accountId } = await owner();
  const id = await addChannel(client, 'team', SLACK);
  const monitorId = await insertMonitorRow(t.db, {
    accountId,
    url: `https://shop.example.org/delete-${id}`,
    targets: [{ id: 'title', kind: 'text', selection: { scope: 'page' }, rule: 'changed' }],
    nextCheckAt: t.clock.now(),
  });
  await t.db.query('UPDATE monitors SET channel_ids = $2 WHERE id = $1', [monitorId, [id]]);
  const confirm = await client.get(`/channels/${id}/delete`);
  assert.equal(confirm.statusCode, 200);
  assert.match(confirm.body, /Delete channel "team"\?/);
  assert.match(confirm.body, /leaves every monitor that chose it/);
  const deleted = await client.post(`/channels/${id}/delete`);
  assert.equal(deleted.statusCode, 303);
  assert.equal(deleted.headers.location, '/channels?notice=channel-deleted');
  assert.doesNotMatch((await client.get('/channels')).body, new RegExp(id));
  const [monitor] = await t.db.query<{ channel_ids: string[] }>('SELECT channel_ids FROM monitors WHERE id = $1', [monitorId]);
  assert.deepEqual(monitor!.channel_ids, []);
});

test('another account’s channel cannot be tested, shown for deletion or deleted: 404 pages', async () => {
  const mine = await owner();
  const id = await addChannel(mine.client, 'team', SLACK);
  const { client } = await owner();
  assert.equal((await client.post(`/channels/${id}/test`)).statusCode, 404);
  assert.equal((await client.get(`/channels/${id}/delete`)).statusCode, 404);
  assert.equal((await client.post(`/channels/${id}/delete`)).statusCode, 404);
  assert.equal((await client.get('/channels/not-a-uuid/delete')).statusCode, 404);
  assert.equal(services.received.length, 0, 'nothing was sent');
  assert.match((await mine.client.get('/channels')).body, new RegExp(id));
});

test('a channel form without the CSRF token is refused', async () => {
  const { client, accountId } = await owner();
  const res = await client.post('/channels', { name: 'team', url: SLACK }, { csrf: null });
  assert.equal(res.statusCode, 403);
  const rows = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM channels WHERE account_id = $1', [accountId]);
  assert.equal(rows[0]!.n, 0);
});

/** The notification settings of the monitor's edit page, as saved with `channels` ticked. */
function settingsForm(channels: string[]): Record<string, string | string[]> {
  return { name: '', labels: '', email: 'on', email_mode: '', failing_after: '3', channels };
}

test('a monitor’s edit page offers the account’s channels as checkboxes, and saving the ticked ones chooses them', async () => {
  const { client, accountId } = await owner();
  const monitorId = await insertMonitorRow(t.db, {
    accountId,
    url: `https://shop.example.org/choose-${accountId}`,
    targets: [{ id: 'title', kind: 'text', selection: { scope: 'page' }, rule: 'changed' }],
    nextCheckAt: t.clock.now(),
  });
  const none = await client.get(`/monitors/${monitorId}/edit`);
  assert.match(none.body, /No chat or push channels yet: <a href="\/channels">add one<\/a>/);
  const slack = await addChannel(client, 'slack team', SLACK);
  const discord = await addChannel(client, 'discord team', DISCORD);
  const edit = await client.get(`/monitors/${monitorId}/edit`);
  assert.match(edit.body, new RegExp(`<input type="checkbox" id="channel-${slack}" name="channels" value="${slack}"><label`));
  assert.match(edit.body, /slack team <span class="muted">\(slack\)<\/span>/);

  const saved = await client.post(`/monitors/${monitorId}/edit`, settingsForm([discord]));
  assert.equal(saved.statusCode, 303, saved.body);
  const [row] = await t.db.query<{ channel_ids: string[] }>('SELECT channel_ids FROM monitors WHERE id = $1', [monitorId]);
  assert.deepEqual(row!.channel_ids, [discord]);
  const again = await client.get(`/monitors/${monitorId}/edit`);
  assert.match(again.body, new RegExp(`id="channel-${discord}" name="channels" value="${discord}" checked>`));
  assert.doesNotMatch(again.body, new RegExp(`value="${slack}" checked`));

  assert.equal((await client.post(`/monitors/${monitorId}/edit`, settingsForm([]))).statusCode, 303);
  const [cleared] = await t.db.query<{ channel_ids: string[] }>('SELECT channel_ids FROM monitors WHERE id = $1', [monitorId]);
  assert.deepEqual(cleared!.channel_ids, [], 'no box ticked chooses no channel');
});

test('a channel of another account is refused on the edit page with the API’s message', async () => {
  const other = await owner();
  const foreign = await addChannel(other.client, 'theirs', SLACK);
  const { client, accountId } = await owner();
  const monitorId = await insertMonitorRow(t.db, {
    accountId,
    url: `https://shop.example.org/foreign-${accountId}`,
    targets: [{ id: 'title', kind: 'text', selection: { scope: 'page' }, rule: 'changed' }],
    nextCheckAt: t.clock.now(),
  });
  await client.get(`/monitors/${monitorId}/edit`);
  const res = await client.post(`/monitors/${monitorId}/edit`, settingsForm([foreign]));
  assert.equal(res.statusCode, 422);
  assert.match(res.body, new RegExp(`role="alert">[^<]*notifications\\.channels: no such channel: ${foreign}`));
  const [row] = await t.db.query<{ channel_ids: string[] }>('SELECT channel_ids FROM monitors WHERE id = $1', [monitorId]);
  assert.deepEqual(row!.channel_ids, []);
});
