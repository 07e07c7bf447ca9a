import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { guardPolicy } from '../../src/domain/network/guard-policy.ts';
import { verifyWebhook } from '../../packages/client/src/index.ts';
import { admin, bearer, createAccountWithToken, type TestApp } from '../helpers/test-app.ts';
import type { ReceivedWebhook, WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { useWebhookWorld } from '../helpers/webhook-world.ts';
import { attemptsOf, insertNotifiedChange, insertNotifyingMonitor, outboxRow, testDispatcher } from '../helpers/notification-rows.ts';

let t: TestApp, receiver: WebhookReceiver;
useWebhookWorld({}, (w) => ({ t, receiver } = w));

/** A pro account whose webhook endpoint is the test receiver; returns its secret as the operator API showed it. */
async function webhookAccount(path = '/hook') {
  const account = await createAccountWithToken(t.app);
  const patched = await admin(t.app, 'PATCH', `/accounts/${account.accountId}`, { webhook_url: `${receiver.url}${path}` });
  assert.equal(patched.statusCode, 200);
  const secret = patched.json().data.webhook_secret as string;
  const monitorId = await insertNotifyingMonitor(t, { accountId: account.accountId, name: 'Espresso machine', webhookEnabled: true });
  return { ...account, secret, monitorId };
}

/** The Standard Webhooks signature computed here, from the secret alone. */
function expectedSignature(secret: string, delivery: ReceivedWebhook): string {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const signed = Buffer.concat([Buffer.from(`${delivery.headers['webhook-id']}.${delivery.headers['webhook-timestamp']}.`), delivery.body]);
  return `v1,${createHmac('sha256', key).update(signed).digest('base64')}`;
}

const unixSeconds = (at: Date) => Math.floor(at.getTime() / 1000);

test('a change is POSTed as a signed change.detected event whose data.change is the API Change summary', async () => {
  const a = await webhookAccount();
  const { changeId, outbox } = await insertNotifiedChange(t, { accountId: a.accountId, monitorId: a.monitorId, channels: ['webhook'] });
  const dispatcher = testDispatcher(t);

  assert.deepEqual(await dispatcher.runOnce(), [{ id: outbox.webhook, channel: 'webhook', outcome: 'delivered' }]);
  assert.equal(receiver.received.length, 1);
  const [delivery] = receiver.received;
  assert.ok(delivery);
  assert.equal(delivery.path, '/hook');
  assert.equal(delivery.headers['content-type'], 'application/json');
  assert.equal(delivery.headers['webhook-id'], outbox.webhook);
  assert.equal(delivery.headers['webhook-timestamp'], String(unixSeconds(t.clock.now())));
  assert.equal(delivery.headers['webhook-signature'], expectedSignature(a.secret, delivery));

  const body = JSON.parse(delivery.body.toString('utf8'));
  const listed = await t.app.inject({ method: 'GET', url: `/api/v1/changes?monitor_id=${a.monitorId}`, headers: bearer(a.token) });
  assert.equal(listed.statusCode, 200);
  assert.deepEqual(body, {
    type: 'change.detected',
    timestamp: t.clock.now().toISOString(),
    data: {
      change: listed.json().data[0],
      monitor: { id: a.monitorId, url: await monitorUrl(a.monitorId), name: 'Espresso machine' },
      diff: { detail: 'complete', unified: '--- before\n+++ after\n', hunks: [] },
      added_links: [],
    },
  });
  assert.equal(body.data.change.id, changeId);

  const row = await outboxRow(t, outbox.webhook);
  assert.equal(row.status, 'delivered');
  assert.deepEqual(row.delivered_at, t.clock.now());
  assert.deepEqual(
    (await attemptsOf(t, outbox.webhook)).map((x) => [x.outcome, x.response_status]),
    [['delivered', 200]],
  );
  assert.deepEqual(await dispatcher.runOnce(), [], 'a delivered notification is not sent again');
});

test("a change.detected event carries the diff of the captured texts and a links target's new links", async () => {
  const a = await webhookAccount();
  const before = 'Opening hours\nMonday closed\nTuesday 9–17';
  const after = 'Opening hours\nMonday 9–12\nTuesday 9–17';
  const text = await insertNotifiedChange(t, {
    accountId: a.accountId,
    monitorId: a.monitorId,
    channels: ['webhook'],
    kind: 'text',
    texts: { before, after },
  });
  const links = await insertNotifiedChange(t, {
    accountId: a.accountId,
    monitorId: a.monitorId,
    channels: ['webhook'],
    kind: 'links',
    targetId: 'news',
    ruleMatches: [{ target_id: 'news', rule: 'new_links' }],
    before: { value: ['https://blog.example/a'], display: null },
    after: { value: ['https://blog.example/a', 'https://blog.example/b'], display: null },
  });
  await testDispatcher(t).runOnce();
  const bodies = new Map(receiver.received.map((d) => [d.headers['webhook-id'], JSON.parse(d.body.toString('utf8'))]));
  assert.deepEqual(bodies.get(text.outbox.webhook).data.diff, {
    detail: 'complete',
    unified: '--- before\n+++ after\n@@ -1,3 +1,3 @@\n Opening hours\n-Monday closed\n+Monday 9–12\n Tuesday 9–17\n',
    hunks: [
      {
        before_start: 2,
        before_count: 1,
        after_start: 2,
        after_count: 1,
        words: [
          { op: 'same', text: 'Monday ' },
          { op: 'removed', text: 'closed' },
          { op: 'added', text: '9–12' },
        ],
      },
    ],
  });
  assert.deepEqual(bodies.get(text.outbox.webhook).data.added_links, []);
  assert.deepEqual(bodies.get(links.outbox.webhook).data.added_links, ['https://blog.example/b']);
});

async function monitorUrl(monitorId: string): Promise<string> {
  return (await t.db.query<{ url: string }>('SELECT url FROM monitors WHERE id = $1', [monitorId]))[0]!.url;
}

test('verifyWebhook accepts the delivery and rejects a changed body, another secret and a stale timestamp', async () => {
  const a = await webhookAccount();
  await insertNotifiedChange(t, { accountId: a.accountId, monitorId: a.monitorId, channels: ['webhook'] });
  await testDispatcher(t).runOnce();
  const [delivery] = receiver.received;
  assert.ok(delivery);
  const now = t.clock.now();

  const verified = verifyWebhook(a.secret, delivery.headers, delivery.body, { now });
  assert.deepEqual(verified, { ok: true, id: delivery.headers['webhook-id'], timestamp: unixSeconds(now) });
  assert.equal(
    verifyWebhook(a.secret, new Headers(delivery.headers as Record<string, string>), delivery.body.toString('utf8'), { now }).ok,
    true,
  );
  assert.equal(verifyWebhook(a.secret, delivery.headers, Buffer.concat([delivery.body, Buffer.from(' ')]), { now }).ok, false);
  const other = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
  assert.equal(verifyWebhook(other, delivery.headers, delivery.body, { now }).ok, false);
  assert.deepEqual(verifyWebhook(a.secret, delivery.headers, delivery.body, { now: new Date(now.getTime() + 301_000) }), {
    ok: false,
    reason: 'webhook-timestamp is outside the tolerance',
  });
  // a rotated-secret style header with several signatures verifies when one matches
  const several = {
    ...delivery.headers,
    'webhook-signature': `v1,${Buffer.alloc(32).toString('base64')} ${delivery.headers['webhook-signature']}`,
  };
  assert.equal(verifyWebhook(a.secret, several, delivery.body, { now }).ok, true);
});

test('a failing endpoint is retried with exponential backoff under the same webhook-id, every attempt recorded', async () => {
  const a = await webhookAccount();
  const { outbox } = await insertNotifiedChange(t, { accountId: a.accountId, monitorId: a.monitorId, channels: ['webhook'] });
  const dispatcher = testDispatcher(t);
  receiver.answer({ status: 500 }, { status: 502 });
  const start = t.clock.now().getTime();

  assert.equal((await dispatcher.runOnce())[0]!.outcome, 'retry');
  let row = await outboxRow(t, outbox.webhook);
  assert.deepEqual([row.status, row.attempts, row.last_error], ['pending', 1, 'the endpoint answered 500']);
  assert.equal(row.next_attempt_at.getTime(), start + 60_000, 'the first retry comes a minute later');
  t.clock.advance(59_000);
  assert.deepEqual(await dispatcher.runOnce(), [], 'not due yet');

  t.clock.advance(1_000);
  assert.equal((await dispatcher.runOnce())[0]!.outcome, 'retry');
  row = await outboxRow(t, outbox.webhook);
  assert.equal(row.next_attempt_at.getTime(), start + 60_000 + 120_000, 'the delay doubles');

  t.clock.set(row.next_attempt_at);
  assert.equal((await dispatcher.runOnce())[0]!.outcome, 'delivered');

  assert.equal(receiver.received.length, 3);
  assert.deepEqual(new Set(receiver.received.map((d) => d.headers['webhook-id'])), new Set([outbox.webhook]));
  assert.deepEqual(
    receiver.received.map((d) => Number(d.headers['webhook-timestamp'])),
    [start / 1000, start / 1000 + 60, start / 1000 + 180],
  );
  for (const delivery of receiver.received) assert.equal(delivery.headers['webhook-signature'], expectedSignature(a.secret, delivery));
  assert.deepEqual(
    (await attemptsOf(t, outbox.webhook)).map((x) => [x.outcome, x.response_status]),
    [
      ['retry', 500],
      ['retry', 502],
      ['delivered', 200],
    ],
  );
  assert.equal((await outboxRow(t, outbox.webhook)).attempts, 3);
});

test('Retry-After (seconds or an HTTP date) pushes the next attempt later than the backoff', async () => {
  const a = await webhookAccount();
  const { outbox } = await insertNotifiedChange(t, { accountId: a.accountId, monitorId: a.monitorId, channels: ['webhook'] });
  const dispatcher = testDispatcher(t);
  const start = t.clock.now().getTime();
  receiver.answer(
    { status: 503, headers: { 'retry-after': '600' } },
    { status: 429, headers: { 'retry-after': new Date(start + 600_000 + 3_600_000).toUTCString() } },
  );

  await dispatcher.runOnce();
  assert.equal((await outboxRow(t, outbox.webhook)).next_attempt_at.getTime(), start + 600_000);
  t.clock.advance(300_000);
  assert.deepEqual(await dispatcher.runOnce(), [], 'the backoff alone would have retried by now');
  t.clock.set(new Date(start + 600_000));
  await dispatcher.runOnce();
  assert.equal((await outboxRow(t, outbox.webhook)).next_attempt_at.getTime(), start + 600_000 + 3_600_000);
  t.clock.set(new Date(start + 600_000 + 3_600_000));
  assert.equal((await dispatcher.runOnce())[0]!.outcome, 'delivered');
  assert.equal(receiver.received.length, 3);
});

test('410 Gone stops the retries at once', async () => {
  const a = await webhookAccount();
  const { outbox } = await insertNotifiedChange(t, { accountId: a.accountId, monitorId: a.monitorId, channels: ['webhook'] });
  const dispatcher = testDispatcher(t);
  receiver.answer({ status: 410 });

  assert.equal((await dispatcher.runOnce())[0]!.outcome, 'failed');
  const row = await outboxRow(t, outbox.webhook);
  assert.deepEqual([row.status, row.attempts, row.last_error, row.delivered_at], ['failed', 1, 'the endpoint answered 410 Gone', null]);
  t.clock.advance(2 * 86_400_000);
  assert.deepEqual(await dispatcher.runOnce(), []);
  assert.equal(receiver.received.length, 1);
  assert.deepEqual(
    (await attemptsOf(t, outbox.webhook)).map((x) => x.response_status),
    [410],
  );
});

test('an endpoint that keeps failing is given up after about a day of attempts', async () => {
  const a = await webhookAccount();
  const { outbox } = await insertNotifiedChange(t, { accountId: a.accountId, monitorId: a.monitorId, channels: ['webhook'] });
  const dispatcher = testDispatcher(t);
  const start = t.clock.now().getTime();
  receiver.answer(...Array.from({ length: 30 }, () => ({ status: 500 })));

  let row = await outboxRow(t, outbox.webhook);
  while (row.status === 'pending') {
    t.clock.set(row.next_attempt_at);
    await dispatcher.runOnce();
    row = await outboxRow(t, outbox.webhook);
  }
  assert.equal(row.status, 'failed');
  assert.match(row.last_error ?? '', /answered 500; gave up after 12 attempts/);
  const attempts = await attemptsOf(t, outbox.webhook);
  assert.equal(attempts.length, 12);
  const lastHours = (attempts[11]!.attempted_at.getTime() - start) / 3_600_000;
  assert.ok(lastHours > 20 && lastHours <= 24, `the last attempt came ${lastHours} h after the change`);
});

test('a slow endpoint times out and is retried; a redirect is an answer, not followed', async () => {
  const a = await webhookAccount();
  const { outbox } = await insertNotifiedChange(t, { accountId: a.accountId, monitorId: a.monitorId, channels: ['webhook'] });
  const dispatcher = testDispatcher(t, { webhookTimeoutMs: 300 });
  receiver.answer({ status: 200, delayMs: 1_000 }, { status: 307, headers: { location: `${receiver.url}/elsewhere` } });

  assert.equal((await dispatcher.runOnce())[0]!.outcome, 'retry');
  t.clock.set((await outboxRow(t, outbox.webhook)).next_attempt_at);
  assert.equal((await dispatcher.runOnce())[0]!.outcome, 'retry');
  assert.deepEqual(
    receiver.received.map((d) => d.path),
    ['/hook', '/hook'],
  );
  const attempts = await attemptsOf(t, outbox.webhook);
  assert.deepEqual(
    attempts.map((x) => x.response_status),
    [null, 307],
  );
  assert.ok(attempts[0]!.error, 'the timeout is recorded');
});

test('the endpoint goes through the SSRF guard: a loopback endpoint the operator does not trust is refused without a connection', async () => {
  const a = await webhookAccount();
  const { outbox } = await insertNotifiedChange(t, { accountId: a.accountId, monitorId: a.monitorId, channels: ['webhook'] });
  const dispatcher = testDispatcher(t, { policy: guardPolicy({ allowPorts: [80, 443], trustedCidrs: [] }) });

  assert.equal((await dispatcher.runOnce())[0]!.outcome, 'failed');
  assert.equal(receiver.received.length, 0);
  assert.match((await outboxRow(t, outbox.webhook)).last_error ?? '', /refused by the SSRF guard/);
});

test('without a webhook endpoint, or with webhooks switched off since, the notification is skipped with the reason', async () => {
  const account = await createAccountWithToken(t.app);
  const monitorId = await insertNotifyingMonitor(t, { accountId: account.accountId, webhookEnabled: true });
  const first = await insertNotifiedChange(t, { accountId: account.accountId, monitorId, channels: ['webhook'] });
  const dispatcher = testDispatcher(t);
  assert.deepEqual(await dispatcher.runOnce(), [
    { id: first.outbox.webhook, channel: 'webhook', outcome: 'skipped', reason: 'no_webhook_url' },
  ]);
  assert.equal((await outboxRow(t, first.outbox.webhook)).status, 'skipped');

  const a = await webhookAccount();
  const second = await insertNotifiedChange(t, { accountId: a.accountId, monitorId: a.monitorId, channels: ['webhook'] });
  await t.db.query('UPDATE monitors SET webhook_enabled = false WHERE id = $1', [a.monitorId]);
  assert.deepEqual(
    (await dispatcher.runOnce()).map((r) => r.reason),
    ['notifications_disabled'],
  );
  t.clock.advance(86_400_000);
  assert.deepEqual(await dispatcher.runOnce(), [], 'a skipped notification is never retried');
  assert.equal(receiver.received.length, 0);
  assert.equal((await outboxRow(t, second.outbox.webhook)).charged_period, null, 'nothing was charged');
});
