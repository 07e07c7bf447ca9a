import { beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import type { SteppedEngine } from '../../src/engine/scheduler.ts';
import { admin, bearer, createAccountWithToken } from '../helpers/test-app.ts';
import { useNotifyingWorld, type NotifyingWorld } from '../helpers/notifying-world.ts';
import { startTestEngine } from '../helpers/test-engine.ts';
import { testDispatcher } from '../helpers/notification-rows.ts';
import { watchPage } from '../helpers/watched-page.ts';

// Email digests (DESIGN §8 Digests) on the engine's manual clock. Each test
// starts on a Tuesday at 12:00 UTC of a week of its own (the clock only moves
// forward); 08:00 in Berlin is 07:00 UTC until 29 March, 06:00 UTC after.

let w: NotifyingWorld;
useNotifyingWorld({ PAGEWATCH_PUBLIC_URL: 'https://watch.example.org' }, (world) => (w = world));
beforeEach(async () => {
  w.smtp.reset();
  await w.t.db.query("UPDATE notification_outbox SET status = 'failed' WHERE status = 'pending'");
});

/** An account in Berlin whose change emails come as a digest of `mode` at 08:00, and a watched page of it. */
async function digestAccount(mode: 'daily' | 'weekly', tuesday: string) {
  w.t.clock.set(`${tuesday}T12:00:00Z`);
  const account = await createAccountWithToken(w.t.app);
  const set = await admin(w.t.app, 'PATCH', `/accounts/${account.accountId}`, {
    time_zone: 'Europe/Berlin',
    email_mode: mode,
    digest_hour: 8,
  });
  assert.equal(set.statusCode, 200, set.body);
  const page = await watchPage(w.t, w.site, w.engine, { accountId: account.accountId, emailEnabled: true });
  await page.check();
  return { ...account, page };
}

async function deliver() {
  return testDispatcher(w.t).runOnce();
}

/** Moves the clock to `at` and runs an engine cycle (its housekeeping queues the digests due) and a delivery round. */
async function reach(at: string, engine: SteppedEngine = w.engine) {
  w.t.clock.set(at);
  await engine.runCycle();
  await deliver();
}

test("a daily digest groups the day's changes into one mail at the account's hour; nothing before it", async () => {
  const { page } = await digestAccount('daily', '2026-03-10');
  await page.check({ title: 'Espresso Trio' });
  await page.check({ title: 'Espresso Quattro' });
  await deliver();
  assert.equal(w.smtp.mails.length, 0, 'no mail per check');

  await reach('2026-03-11T06:59:00Z');
  assert.equal(w.smtp.mails.length, 0, 'nothing before 08:00 in Berlin');
  await reach('2026-03-11T07:00:30Z');
  assert.equal(w.smtp.mails.length, 1);
  const [mail] = w.smtp.mails;
  assert.equal(mail!.headers.get('subject'), '[pagewatch] daily digest: 2 changes');
  assert.match(mail!.text, /Espresso Duo → Espresso Trio/);
  assert.match(mail!.text, /Espresso Trio → Espresso Quattro/);
  assert.ok(mail!.text.indexOf('Espresso Duo →') < mail!.text.indexOf('Espresso Trio →'), 'oldest first');
  assert.match(mail!.text, /https:\/\/watch\.example\.org\/changes\/[0-9a-f-]{36}/);
});

test('a quiet day sends no digest', async () => {
  const { page } = await digestAccount('daily', '2026-03-17');
  await page.check({ title: 'Changed once' });
  await deliver();
  await reach('2026-03-18T07:30:00Z');
  assert.equal(w.smtp.mails.length, 1);
  w.smtp.reset();
  await reach('2026-03-19T07:30:00Z');
  assert.equal(w.smtp.mails.length, 0);
});

test('a weekly digest goes out on Monday at the hour, with the week’s changes', async () => {
  const { page } = await digestAccount('weekly', '2026-04-07');
  await page.check({ title: 'Tuesday' });
  await deliver();
  await reach('2026-04-10T07:30:00Z');
  assert.equal(w.smtp.mails.length, 0, 'not on Friday');
  await reach('2026-04-13T06:00:30Z');
  assert.equal(w.smtp.mails.length, 1);
  assert.equal(w.smtp.mails[0]!.headers.get('subject'), '[pagewatch] weekly digest: 1 change');
});

test('two workers reaching the hour together queue exactly one digest', async () => {
  const { accountId, page } = await digestAccount('daily', '2026-04-21');
  await page.check({ title: 'Once' });
  await deliver();
  const second = startTestEngine(w.t);
  try {
    w.t.clock.set('2026-04-22T06:00:30Z');
    await Promise.all([w.engine.runCycle(), second.runCycle()]);
  } finally {
    await second.stop();
  }
  const digests = await w.t.db.query("SELECT id FROM notification_outbox WHERE account_id = $1 AND event = 'digest.daily'", [accountId]);
  assert.equal(digests.length, 1);
  await deliver();
  assert.equal(w.smtp.mails.length, 1);
});

test("a monitor's own email_mode each keeps one mail per check in a digest account", async () => {
  const { token, page } = await digestAccount('daily', '2026-04-28');
  const res = await w.t.app.inject({
    method: 'PATCH',
    url: `/api/v1/monitors/${page.monitorId}`,
    headers: { ...bearer(token), 'content-type': 'application/json' },
    payload: JSON.stringify({ notifications: { email_mode: 'each' } }),
  });
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(res.json().data.notifications.email_mode, 'each');
  await page.check({ title: 'At once' });
  await deliver();
  assert.equal(w.smtp.mails.length, 1);
  assert.match(w.smtp.mails[0]!.headers.get('subject') ?? '', /changed on/);
});

test("a monitor's own email_mode daily gathers its changes into the digest in an account of one mail per check", async () => {
  const { token, accountId, page } = await digestAccount('daily', '2026-05-05');
  const each = await admin(w.t.app, 'PATCH', `/accounts/${accountId}`, { email_mode: 'each' });
  assert.equal(each.statusCode, 200, each.body);
  const res = await w.t.app.inject({
    method: 'PATCH',
    url: `/api/v1/monitors/${page.monitorId}`,
    headers: { ...bearer(token), 'content-type': 'application/json' },
    payload: JSON.stringify({ notifications: { email_mode: 'daily' } }),
  });
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(res.json().data.notifications.email_mode, 'daily');
  await page.check({ title: 'Gathered' });
  await deliver();
  assert.equal(w.smtp.mails.length, 0, 'no mail per check');
  await reach('2026-05-06T06:00:30Z');
  assert.equal(w.smtp.mails.length, 1);
  assert.equal(w.smtp.mails[0]!.headers.get('subject'), '[pagewatch] daily digest: 1 change');
});
