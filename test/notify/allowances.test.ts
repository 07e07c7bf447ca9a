import { after, before, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { admin, bearer, createAccountWithToken, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { startMailCatcher, type MailCatcher } from '../helpers/mail-catcher.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { insertNotifiedChange, insertNotifyingMonitor, outboxRow, testDispatcher } from '../helpers/notification-rows.ts';

// Monthly notification allowances: a sent notification is charged once; when
// the month's allowance is used up the notification is recorded as not sent
// and nothing is charged. GET /usage shows the same counters.

let t: TestApp;
let smtp: MailCatcher;
let receiver: WebhookReceiver;
before(async () => {
  smtp = await startMailCatcher();
  receiver = await startWebhookReceiver();
  t = await startTestApp({ env: { PAGEWATCH_SMTP_URL: smtp.url }, plans: { pro: { notifications_per_month: { email: 1, webhook: 2 } } } });
});
after(async () => {
  await t.close();
  await smtp.close();
  await receiver.close();
});
beforeEach(async () => {
  smtp.reset();
  receiver.reset();
  await t.db.query("UPDATE notification_outbox SET status = 'failed' WHERE status = 'pending'");
});

async function notifiedAccount() {
  const account = await createAccountWithToken(t.app);
  await admin(t.app, 'PATCH', `/accounts/${account.accountId}`, { webhook_url: `${receiver.url}/hook` });
  const monitorId = await insertNotifyingMonitor(t, { accountId: account.accountId, emailEnabled: true, webhookEnabled: true });
  const change = (channels: ('email' | 'webhook')[]) => insertNotifiedChange(t, { accountId: account.accountId, monitorId, channels });
  const usage = async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/v1/usage', headers: bearer(account.token) });
    assert.equal(response.statusCode, 200);
    const { email, webhook } = response.json().data.notifications;
    return { email: [email.used, email.limit], webhook: [webhook.used, webhook.limit] };
  };
  return { ...account, monitorId, change, usage };
}

test('notifications are charged as they are sent; past the allowance they are recorded as not sent and charge nothing', async () => {
  const a = await notifiedAccount();
  const changes = [];
  for (let i = 0; i < 3; i++) {
    changes.push(await a.change(['webhook']));
    t.clock.advance(1_000);
  }
  const reports = await testDispatcher(t).runOnce();
  assert.deepEqual(
    reports.map((r) => [r.id, r.outcome, r.reason]),
    changes.map((c, i) => [c.outbox.webhook, i < 2 ? 'delivered' : 'skipped', i < 2 ? undefined : 'allowance_exhausted']),
  );
  assert.equal(receiver.received.length, 2);
  const third = await outboxRow(t, changes[2]!.outbox.webhook);
  assert.deepEqual([third.status, third.skipped_reason, third.charged_period], ['skipped', 'allowance_exhausted', null]);
  assert.deepEqual(await a.usage(), { email: [0, 1], webhook: [2, 2] });
});

test('email and webhook allowances are counted apart', async () => {
  const a = await notifiedAccount();
  await a.change(['email', 'webhook']);
  await a.change(['email', 'webhook']);
  const reports = await testDispatcher(t).runOnce();
  const outcomes = (channel: string) =>
    reports
      .filter((r) => r.channel === channel)
      .map((r) => r.reason ?? r.outcome)
      .sort();
  assert.deepEqual(outcomes('email'), ['allowance_exhausted', 'delivered']);
  assert.deepEqual(outcomes('webhook'), ['delivered', 'delivered']);
  assert.equal(smtp.mails.length, 1);
  assert.deepEqual(await a.usage(), { email: [1, 1], webhook: [2, 2] });
});

test('a notification retried until it is delivered is charged once', async () => {
  const a = await notifiedAccount();
  const { outbox } = await a.change(['webhook']);
  receiver.answer({ status: 500 }, { status: 503 });
  const dispatcher = testDispatcher(t);
  for (let attempt = 0; attempt < 3; attempt++) {
    const row = await outboxRow(t, outbox.webhook);
    if (row.next_attempt_at > t.clock.now()) t.clock.set(row.next_attempt_at);
    await dispatcher.runOnce();
  }
  assert.equal((await outboxRow(t, outbox.webhook)).status, 'delivered');
  assert.equal(receiver.received.length, 3);
  assert.deepEqual((await a.usage()).webhook, [1, 2]);
});

test('the allowance is new each UTC month', async () => {
  const a = await notifiedAccount();
  await a.change(['email']);
  await a.change(['email']);
  await testDispatcher(t).runOnce();
  assert.deepEqual((await a.usage()).email, [1, 1]);

  const now = t.clock.now();
  t.clock.set(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1, 0, 5)));
  assert.deepEqual((await a.usage()).email, [0, 1]);
  await a.change(['email']);
  assert.deepEqual(
    (await testDispatcher(t).runOnce()).map((r) => r.outcome),
    ['delivered'],
  );
  assert.deepEqual((await a.usage()).email, [1, 1]);
  assert.equal(smtp.mails.length, 2);
});

test('dispatchers running side by side never send past the allowance', async () => {
  const a = await notifiedAccount();
  for (let i = 0; i < 6; i++) await a.change(['webhook']);
  const dispatchers = [testDispatcher(t, { batchSize: 2 }), testDispatcher(t, { batchSize: 2 }), testDispatcher(t, { batchSize: 2 })];
  const reports = [
    ...(await Promise.all(dispatchers.map((d) => d.runOnce()))).flat(),
    ...(await Promise.all(dispatchers.map((d) => d.runOnce()))).flat(),
  ];
  assert.equal(reports.filter((r) => r.outcome === 'delivered').length, 2);
  assert.equal(reports.filter((r) => r.reason === 'allowance_exhausted').length, 4);
  assert.equal(receiver.received.length, 2);
  assert.deepEqual((await a.usage()).webhook, [2, 2]);
});
