import { after, before, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../../src/config.ts';
import type { Target } from '../../src/domain/targets.ts';
import { createAccountWithToken, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { startMailCatcher, type MailCatcher } from '../helpers/mail-catcher.ts';
import { listenCounting } from '../helpers/tcp-listener.ts';
import { attemptsOf, insertNotifiedChange, insertNotifyingMonitor, outboxRow, testDispatcher } from '../helpers/notification-rows.ts';

let t: TestApp;
let smtp: MailCatcher;
before(async () => {
  smtp = await startMailCatcher();
  t = await startTestApp({ env: { PAGEWATCH_SMTP_URL: smtp.url, PAGEWATCH_PUBLIC_URL: 'https://watch.example.org/' } });
});
after(async () => {
  await t.close();
  await smtp.close();
});
beforeEach(async () => {
  smtp.reset();
  await t.db.query("UPDATE notification_outbox SET status = 'failed' WHERE status = 'pending'");
});

async function emailAccount(monitor: { name?: string; url?: string; targets?: Target[] } = {}) {
  const account = await createAccountWithToken(t.app);
  const email = (await t.db.query<{ email: string }>('SELECT email FROM accounts WHERE id = $1', [account.accountId]))[0]!.email;
  const monitorId = await insertNotifyingMonitor(t, { accountId: account.accountId, emailEnabled: true, ...monitor });
  return { ...account, email, monitorId };
}

test('an email to the account names the monitor, target, rule, before and after values and links to the change on the dashboard', async () => {
  const a = await emailAccount({ name: 'Espresso machine', url: 'https://shop.example/espresso' });
  const { changeId, outbox } = await insertNotifiedChange(t, { accountId: a.accountId, monitorId: a.monitorId, channels: ['email'] });

  assert.deepEqual(await testDispatcher(t).runOnce(), [{ id: outbox.email, channel: 'email', outcome: 'delivered' }]);
  assert.equal(smtp.mails.length, 1);
  const [mail] = smtp.mails;
  assert.ok(mail);
  assert.deepEqual(mail.to, [a.email]);
  assert.equal(mail.from, 'pagewatch@watch.example.org');
  assert.equal(mail.headers.get('subject'), '[pagewatch] Espresso price on Espresso machine: dropped');
  const link = `https://watch.example.org/changes/${changeId}`;
  for (const line of [
    'pagewatch detected a change on Espresso machine.',
    'Monitor:  Espresso machine (https://shop.example/espresso)',
    'Target:   Espresso price',
    'Rule:     dropped: the price dropped',
    'Before:   24.00 EUR',
    'After:    19.90 EUR',
    `Detected: ${t.clock.now().toISOString()}`,
    `See the change: ${link}`,
  ])
    assert.ok(mail.text.includes(line), `the text part has "${line}":\n${mail.text}`);
  assert.match(mail.html, /<th align="left" valign="top">Before<\/th><td[^>]*>24\.00 EUR<\/td>/);
  assert.ok(mail.html.includes(`<a href="${link}">`));

  const row = await outboxRow(t, outbox.email);
  assert.equal(row.status, 'delivered');
  assert.deepEqual(
    (await attemptsOf(t, outbox.email)).map((x) => [x.outcome, x.response_status]),
    [['delivered', 250]],
  );
});

test('captured text and names are escaped in the HTML part', async () => {
  const target: Target = { id: 'headline', label: 'Headline <i>', kind: 'text', selection: { scope: 'page' } };
  const a = await emailAccount({ name: 'Shop <img src=x onerror=alert(1)>', targets: [target] });
  await insertNotifiedChange(t, {
    accountId: a.accountId,
    monitorId: a.monitorId,
    channels: ['email'],
    targetId: 'headline',
    kind: 'text',
    ruleMatches: null,
    before: { value: 'Sale', display: 'Sale' },
    after: { value: '<script>alert("x")</script> & more', display: '<script>alert("x")</script> & more' },
  });

  await testDispatcher(t).runOnce();
  const [mail] = smtp.mails;
  assert.ok(mail);
  assert.ok(!mail.html.includes('<script>'), mail.html);
  assert.ok(!mail.html.includes('<img'), mail.html);
  assert.ok(!mail.html.includes('<i>'), mail.html);
  assert.ok(mail.html.includes('&#60;script&#62;alert(&#34;x&#34;)&#60;/script&#62; &#38; more'), mail.html);
  // the plain-text part carries the text as it was captured
  assert.ok(mail.text.includes('After:    <script>alert("x")</script> & more'));
  assert.ok(mail.text.includes('Rule:     any change (the target has no alert rule)'));
});

test('a monitor without a name is named by its URL; long values are cut', async () => {
  const target: Target = { id: 'body', kind: 'text', selection: { scope: 'page' }, rule: 'changed' };
  const a = await emailAccount({ url: 'https://news.example/front', targets: [target] });
  const long = 'word '.repeat(400).trim();
  await insertNotifiedChange(t, {
    accountId: a.accountId,
    monitorId: a.monitorId,
    channels: ['email'],
    targetId: 'body',
    kind: 'text',
    ruleMatches: [{ target_id: 'body', rule: 'changed' }],
    before: { value: 'short', display: 'short' },
    after: { value: long, display: long },
  });

  await testDispatcher(t).runOnce();
  const [mail] = smtp.mails;
  assert.ok(mail);
  assert.equal(mail.headers.get('subject'), '[pagewatch] body on https://news.example/front: changed');
  assert.ok(mail.text.includes('Monitor:  https://news.example/front\n'));
  assert.ok(mail.text.includes('Target:   body\n'));
  const after = /After: {4}(.*)\n/.exec(mail.text)?.[1] ?? '';
  assert.equal(after.length, 501);
  assert.ok(after.endsWith('…'));
});

test('a temporary SMTP refusal is retried; a permanent one fails without retries', async () => {
  const a = await emailAccount();
  const { outbox } = await insertNotifiedChange(t, { accountId: a.accountId, monitorId: a.monitorId, channels: ['email'] });
  const dispatcher = testDispatcher(t);
  smtp.refuse(451, 550);

  assert.equal((await dispatcher.runOnce())[0]!.outcome, 'retry');
  const row = await outboxRow(t, outbox.email);
  assert.equal(row.next_attempt_at.getTime(), t.clock.now().getTime() + 60_000);
  t.clock.set(row.next_attempt_at);
  assert.equal((await dispatcher.runOnce())[0]!.outcome, 'failed');
  t.clock.advance(86_400_000);
  assert.deepEqual(await dispatcher.runOnce(), []);
  assert.equal(smtp.mails.length, 0);
  assert.deepEqual(
    (await attemptsOf(t, outbox.email)).map((x) => [x.outcome, x.response_status]),
    [
      ['retry', 451],
      ['failed', 550],
    ],
  );
});

test('an SMTP server that cannot be reached is tried again later', async () => {
  const a = await emailAccount();
  const { outbox } = await insertNotifiedChange(t, { accountId: a.accountId, monitorId: a.monitorId, channels: ['email'] });
  const closed = await listenCounting('127.0.0.1');
  await closed.close();
  const dispatcher = testDispatcher(t, { config: { ...t.config, smtpUrl: `smtp://127.0.0.1:${closed.port}` } });
  try {
    assert.equal((await dispatcher.runOnce())[0]!.outcome, 'retry');
  } finally {
    await dispatcher.stop();
  }
  const row = await outboxRow(t, outbox.email);
  assert.deepEqual([row.status, row.attempts], ['pending', 1]);
  assert.ok(row.last_error);
  assert.equal((await testDispatcher(t).runOnce()).length, 0, 'not due before its backoff');
  t.clock.set(row.next_attempt_at);
  assert.equal((await testDispatcher(t).runOnce())[0]!.outcome, 'delivered', 'delivered once the server is back');
});

test('without PAGEWATCH_SMTP_URL an email notification is skipped with the reason, never retried, not charged', async () => {
  const a = await emailAccount();
  const { outbox } = await insertNotifiedChange(t, { accountId: a.accountId, monitorId: a.monitorId, channels: ['email'] });
  const dispatcher = testDispatcher(t, { config: { ...t.config, smtpUrl: null } });

  assert.deepEqual(await dispatcher.runOnce(), [{ id: outbox.email, channel: 'email', outcome: 'skipped', reason: 'smtp_not_configured' }]);
  const row = await outboxRow(t, outbox.email);
  assert.deepEqual([row.status, row.skipped_reason, row.charged_period], ['skipped', 'smtp_not_configured', null]);
  t.clock.advance(86_400_000);
  assert.deepEqual(await dispatcher.runOnce(), []);
  assert.equal(smtp.mails.length, 0);
});

test('PAGEWATCH_SMTP_FROM names the sender', async () => {
  const config = loadConfig({ PAGEWATCH_SMTP_FROM: 'pagewatch alerts <alerts@watch.example.org>' });
  assert.equal(config.smtpFrom, 'pagewatch alerts <alerts@watch.example.org>');
  const a = await emailAccount();
  await insertNotifiedChange(t, { accountId: a.accountId, monitorId: a.monitorId, channels: ['email'] });
  await testDispatcher(t, { config: { ...t.config, smtpFrom: config.smtpFrom } }).runOnce();
  assert.equal(smtp.mails[0]!.from, 'alerts@watch.example.org');
  assert.equal(smtp.mails[0]!.headers.get('from'), 'pagewatch alerts <alerts@watch.example.org>');
});
