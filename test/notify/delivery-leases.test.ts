import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { DEFAULT_DELIVERY_LEASE_SECONDS } from '../../src/notify/dispatcher.ts';
import { sendWebhook } from '../../src/notify/webhook-sender.ts';
import { webhookBody } from '../../src/notify/monitor-event.ts';
import { changeDiffs } from '../../src/services/change-diffs.ts';
import { claimDueDeliveries, readDeliverySubject } from '../../src/store/deliveries-store.ts';
import { admin, createAccountWithToken, type TestApp } from '../helpers/test-app.ts';
import type { WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { useWebhookWorld } from '../helpers/webhook-world.ts';
import { attemptsOf, insertNotifiedChange, insertNotifyingMonitor, outboxRow, testDispatcher } from '../helpers/notification-rows.ts';

// At-least-once delivery from the durable outbox: whatever point a dispatcher
// dies at, the notification still goes out, and it goes out under one id.

let t: TestApp, receiver: WebhookReceiver;
useWebhookWorld({}, (w) => ({ t, receiver } = w));

async function webhookAccount() {
  const account = await createAccountWithToken(t.app);
  const patched = await admin(t.app, 'PATCH', `/accounts/${account.accountId}`, { webhook_url: `${receiver.url}/hook` });
  const monitorId = await insertNotifyingMonitor(t, { accountId: account.accountId, webhookEnabled: true });
  return { accountId: account.accountId, monitorId, secret: patched.json().data.webhook_secret as string };
}

const leaseMs = DEFAULT_DELIVERY_LEASE_SECONDS * 1000;

test('a change committed before any dispatcher ran is delivered by the dispatcher of the next process', async () => {
  const a = await webhookAccount();
  const { outbox } = await insertNotifiedChange(t, { accountId: a.accountId, monitorId: a.monitorId, channels: ['webhook'] });
  // "After the restart": a dispatcher that never saw the change being made.
  const restarted = testDispatcher(t);
  assert.equal((await restarted.runOnce())[0]!.outcome, 'delivered');
  assert.deepEqual(
    receiver.received.map((d) => d.headers['webhook-id']),
    [outbox.webhook],
  );
});

test('a dispatcher that died after claiming: the row is delivered exactly once by another after the lease runs out', async () => {
  const a = await webhookAccount();
  const { outbox } = await insertNotifiedChange(t, { accountId: a.accountId, monitorId: a.monitorId, channels: ['webhook'] });
  // The claim a dispatcher makes right before its process dies.
  const dead = await t.db.transaction((tx) => claimDueDeliveries(tx, t.clock.now(), DEFAULT_DELIVERY_LEASE_SECONDS, 10));
  assert.deepEqual(
    dead.map((c) => c.id),
    [outbox.webhook],
  );

  const survivor = testDispatcher(t);
  assert.deepEqual(await survivor.runOnce(), [], 'the row is leased');
  t.clock.advance(leaseMs - 1_000);
  assert.deepEqual(await survivor.runOnce(), [], 'still leased');
  t.clock.advance(1_000);
  assert.equal((await survivor.runOnce())[0]!.outcome, 'delivered');
  t.clock.advance(leaseMs * 2);
  assert.deepEqual(await survivor.runOnce(), []);
  assert.equal(receiver.received.length, 1);
  assert.equal((await outboxRow(t, outbox.webhook)).status, 'delivered');
});

test('a dispatcher that died after sending, before recording it: the retry carries the same webhook-id', async () => {
  const a = await webhookAccount();
  const { outbox } = await insertNotifiedChange(t, { accountId: a.accountId, monitorId: a.monitorId, channels: ['webhook'] });
  const [claim] = await t.db.transaction((tx) => claimDueDeliveries(tx, t.clock.now(), DEFAULT_DELIVERY_LEASE_SECONDS, 10));
  assert.ok(claim);
  const subject = await readDeliverySubject(t.db, claim.id);
  assert.ok(subject);
  // The body the dispatcher sends: the event with the change's diff.
  const diffs = await changeDiffs(
    { db: t.db, extraction: t.loaders.extraction, ticket: { account: a.accountId, lane: 'check' } },
    subject.changes,
  );
  const sent = await sendWebhook(
    { policy: t.loaders.policy, clock: t.clock },
    { id: claim.id, url: `${receiver.url}/hook`, secret: a.secret, body: webhookBody(subject, diffs) },
  );
  assert.equal(sent.outcome, 'delivered');
  // …and the process is gone before it could record the delivery.

  t.clock.advance(leaseMs);
  assert.equal((await testDispatcher(t).runOnce())[0]!.outcome, 'delivered');
  assert.deepEqual(
    receiver.received.map((d) => d.headers['webhook-id']),
    [outbox.webhook, outbox.webhook],
  );
  assert.deepEqual(JSON.parse(receiver.received[0]!.body.toString()), JSON.parse(receiver.received[1]!.body.toString()));
});

test('a dispatcher that outlived its lease does not overwrite the outcome of the one that took over', async () => {
  const a = await webhookAccount();
  const { outbox } = await insertNotifiedChange(t, { accountId: a.accountId, monitorId: a.monitorId, channels: ['webhook'] });
  receiver.answer({ status: 500, delayMs: 400 }, { status: 200 });
  const slow = testDispatcher(t).runOnce();
  while (receiver.received.length === 0) await sleep(10);

  t.clock.advance(leaseMs);
  assert.equal((await testDispatcher(t).runOnce())[0]!.outcome, 'delivered');
  assert.deepEqual(await slow, [{ id: outbox.webhook, channel: 'webhook', outcome: 'lease_lost' }]);
  const row = await outboxRow(t, outbox.webhook);
  assert.deepEqual([row.status, row.attempts], ['delivered', 1]);
  assert.deepEqual((await attemptsOf(t, outbox.webhook)).map((x) => x.response_status).sort(), [200, 500], 'both sends are in the log');
});

test('dispatchers running side by side send each notification once', async () => {
  const a = await webhookAccount();
  const ids: string[] = [];
  for (let i = 0; i < 8; i++)
    ids.push((await insertNotifiedChange(t, { accountId: a.accountId, monitorId: a.monitorId, channels: ['webhook'] })).outbox.webhook);
  const dispatchers = [testDispatcher(t, { batchSize: 3 }), testDispatcher(t, { batchSize: 3 }), testDispatcher(t, { batchSize: 3 })];
  const reports = (await Promise.all(dispatchers.map((d) => d.runOnce()))).flat();
  const more = (await Promise.all(dispatchers.map((d) => d.runOnce()))).flat();
  assert.deepEqual(
    [...reports, ...more]
      .filter((r) => r.outcome === 'delivered')
      .map((r) => r.id)
      .sort(),
    [...ids].sort(),
  );
  assert.deepEqual(receiver.received.map((d) => d.headers['webhook-id']).sort(), [...ids].sort());
});

test('the loop started with the server delivers on its own and stops cleanly', async () => {
  const a = await webhookAccount();
  const dispatcher = testDispatcher(t, { pollMs: 20 });
  dispatcher.start();
  try {
    const { outbox } = await insertNotifiedChange(t, { accountId: a.accountId, monitorId: a.monitorId, channels: ['webhook'] });
    const deadline = Date.now() + 10_000;
    while (receiver.received.length === 0 && Date.now() < deadline) await sleep(20);
    assert.deepEqual(
      receiver.received.map((d) => d.headers['webhook-id']),
      [outbox.webhook],
    );
  } finally {
    await dispatcher.stop();
  }
  await insertNotifiedChange(t, { accountId: a.accountId, monitorId: a.monitorId, channels: ['webhook'] });
  // A bounded wait to show that something does not happen.
  await sleep(100);
  assert.equal(receiver.received.length, 1, 'a stopped dispatcher sends nothing');
});
