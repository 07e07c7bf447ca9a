import { test } from 'node:test';
import assert from 'node:assert/strict';
import { admin, createAccountWithToken, type TestApp } from '../helpers/test-app.ts';
import type { WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { useWebhookWorld } from '../helpers/webhook-world.ts';
import { insertNotifiedChange, insertNotifyingMonitor, outboxRow, testDispatcher } from '../helpers/notification-rows.ts';
import { waitUntil } from '../helpers/pagewatch-process.ts';
import { signal } from '../helpers/signal.ts';

// Delivery leases follow the work as the engine's do: a send that takes
// longer than the lease keeps its row while the dispatcher's heartbeat renews
// it, so a slow endpoint is not sent the same notification twice.

let t: TestApp, receiver: WebhookReceiver;
useWebhookWorld({}, (w) => ({ t, receiver } = w));

// Leases run on the test clock; the heartbeat beats in real time, a third of a lease apart, so a short lease is a short wait.
const LEASE_SECONDS = 3;

test('a slow send keeps its row leased while the dispatcher beats: no second dispatcher sends it again', async () => {
  const account = await createAccountWithToken(t.app);
  await admin(t.app, 'PATCH', `/accounts/${account.accountId}`, { webhook_url: `${receiver.url}/hook` });
  const monitorId = await insertNotifyingMonitor(t, { accountId: account.accountId, webhookEnabled: true });
  const { outbox } = await insertNotifiedChange(t, { accountId: account.accountId, monitorId, channels: ['webhook'] });
  // A slow endpoint: it answers once the test has let two leases' worth of clock pass.
  const { promise: answered, resolve: answer } = signal();
  receiver.answer({ status: 200, until: answered });
  const sending = testDispatcher(t, { leaseSeconds: LEASE_SECONDS });
  sending.start();
  try {
    await waitUntil('the webhook being sent', () => receiver.received.length === 1);
    for (let i = 0; i < 2; i++) {
      t.clock.advance(LEASE_SECONDS * 1000);
      await waitUntil('the lease renewed', async () => (await outboxRow(t, outbox.webhook)).next_attempt_at > t.clock.now());
    }
    assert.deepEqual(await testDispatcher(t, { leaseSeconds: LEASE_SECONDS }).runOnce(), [], 'a renewed lease is not taken over');
    answer();
    await waitUntil('the delivery recorded', async () => (await outboxRow(t, outbox.webhook)).status === 'delivered');
  } finally {
    answer();
    await sending.stop();
  }
  assert.equal(receiver.received.length, 1);
});
