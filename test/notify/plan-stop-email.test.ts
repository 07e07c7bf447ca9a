import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { admin, createAccountWithToken, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { startMailCatcher, type MailCatcher } from '../helpers/mail-catcher.ts';
import { insertMonitorRow } from '../helpers/monitor-rows.ts';
import { testDispatcher } from '../helpers/notification-rows.ts';
import { TITLE } from '../helpers/watched-page.ts';

// The operator moves an account to a plan under which some of its monitors
// are no longer checked: the owner gets one email naming them, why, and what
// to do, through the notification outbox like every other email.

let t: TestApp, smtp: MailCatcher;
before(async () => {
  smtp = await startMailCatcher();
  // The operator's free plan: monitoring, but no browser checks.
  t = await startTestApp({
    env: { PAGEWATCH_SMTP_URL: smtp.url, PAGEWATCH_PUBLIC_URL: 'https://watch.example.org' },
    plans: { free: { api_access: true, tokens: 5 } },
  });
});
after(async () => {
  await t.close();
  await smtp.close();
});

async function accountWithMonitors() {
  const { accountId } = await createAccountWithToken(t.app);
  const email = (await admin(t.app, 'GET', `/accounts/${accountId}`)).json().data.email as string;
  const monitor = (loadMode: 'html' | 'browser', n: number) =>
    insertMonitorRow(t.db, {
      accountId,
      url: `https://shop.example/${loadMode}-${n}`,
      targets: [TITLE],
      loadMode,
      nextCheckAt: t.clock.now(),
    });
  const browser = await monitor('browser', 1);
  const html = await monitor('html', 1);
  const paused = await monitor('browser', 2);
  await t.db.query("UPDATE monitors SET status = 'paused', name = 'Paused one' WHERE id = $1", [paused]);
  await t.db.query("UPDATE monitors SET name = 'Espresso machine' WHERE id = $1", [browser]);
  return { accountId, email, browser, html, paused };
}

const mailsTo = (email: string) => smtp.mails.filter((m) => m.to.includes(email));

test('a move to a plan without the load mode of some monitors sends the owner one email naming them, why, and what to do', async () => {
  const a = await accountWithMonitors();
  assert.equal((await admin(t.app, 'PATCH', `/accounts/${a.accountId}`, { plan: 'free' })).statusCode, 200);
  await testDispatcher(t).runOnce();
  const mails = mailsTo(a.email);
  assert.equal(mails.length, 1);
  const mail = mails[0]!;
  assert.equal(mail.headers.get('subject'), '[pagewatch] 1 monitor is no longer checked on the free plan');
  assert.ok(mail.text.includes('Espresso machine (https://shop.example/browser-1)'), mail.text);
  assert.match(mail.text, /no browser checks/, 'says why');
  assert.ok(mail.text.includes(`https://watch.example.org/monitors/${a.browser}`), 'links the monitor');
  assert.match(mail.text, /change the monitor's load mode, or the account's plan/, 'says what to do');
  assert.match(mail.text, /the operator of this pagewatch server/, 'and who can change the plan');
  assert.ok(!mail.text.includes('html-1'), 'an html monitor is still checked');
  assert.ok(!mail.text.includes('Paused one'), 'a paused monitor was not being checked anyway');
  assert.match(mail.html, /<a href="https:\/\/watch\.example\.org\/monitors\/[^"]+">Espresso machine/);
});

test('moving the account again to the plan it already has sends no second email', async () => {
  const a = await accountWithMonitors();
  for (let i = 0; i < 3; i++) {
    assert.equal((await admin(t.app, 'PATCH', `/accounts/${a.accountId}`, { plan: 'free' })).statusCode, 200);
    await testDispatcher(t).runOnce();
  }
  assert.equal(mailsTo(a.email).length, 1);
});

test('the email is queued in the outbox with the move and retried when the mail server refuses it for now', async () => {
  const a = await accountWithMonitors();
  const dispatcher = testDispatcher(t);
  // Whatever earlier tests left queued goes first, so that the rounds below see this move's email alone.
  await dispatcher.runOnce();
  smtp.refuse(451);
  await admin(t.app, 'PATCH', `/accounts/${a.accountId}`, { plan: 'free' });
  const queued = await t.db.query<{ event: string }>('SELECT event FROM notification_outbox WHERE account_id = $1', [a.accountId]);
  assert.deepEqual(
    queued.map((r) => r.event),
    ['account.monitors_stopped'],
  );
  assert.deepEqual(
    (await dispatcher.runOnce()).map((r) => r.outcome),
    ['retry'],
  );
  assert.equal(mailsTo(a.email).length, 0);
  t.clock.advance(60_000);
  assert.deepEqual(
    (await dispatcher.runOnce()).map((r) => r.outcome),
    ['delivered'],
  );
  assert.equal(mailsTo(a.email).length, 1);
});
