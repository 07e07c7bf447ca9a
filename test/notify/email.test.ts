import { randomUUID } from 'node:crypto';
import { after, before, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../../src/config.ts';
import type { Target } from '../../src/domain/targets.ts';
import { createAccountWithToken, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { startMailCatcher, type MailCatcher } from '../helpers/mail-catcher.ts';
import { listenCounting } from '../helpers/tcp-listener.ts';
import { enqueueNotification } from '../../src/store/outbox-store.ts';
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

test('an email to the account names the monitor, target, rule, the old and new price and links to the change on the dashboard', async () => {
  const a = await emailAccount({ name: 'Espresso machine', url: 'https://shop.example/espresso' });
  const { changeId, outbox } = await insertNotifiedChange(t, { accountId: a.accountId, monitorId: a.monitorId, channels: ['email'] });

  assert.deepEqual(await testDispatcher(t).runOnce(), [{ id: outbox.email, channel: 'email', outcome: 'delivered' }]);
  assert.equal(smtp.mails.length, 1);
  const [mail] = smtp.mails;
  assert.ok(mail);
  assert.deepEqual(mail.to, [a.email]);
  assert.equal(mail.from, 'pagewatch@watch.example.org');
  assert.equal(mail.headers.get('subject'), '[pagewatch] price dropped to 19.90 EUR on Espresso machine');
  const link = `https://watch.example.org/changes/${changeId}`;
  for (const line of [
    'pagewatch detected a change on Espresso machine.',
    'Monitor:  Espresso machine (https://shop.example/espresso)',
    'Target:   Espresso price',
    'Rule:     dropped: the price dropped',
    'Price: 24.00 EUR → 19.90 EUR',
    `See the change: ${link}`,
  ])
    assert.ok(mail.text.includes(line), `the text part has "${line}":\n${mail.text}`);
  assert.match(mail.text, /\nDetected: \d{1,2} [A-Z][a-z]{2} \d{4}, \d{2}:\d{2} UTC\n/);
  assert.match(mail.html, /Price: 24\.00 EUR → 19\.90 EUR/);
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
  assert.ok(mail.text.includes('+ <script>alert("x")</script> & more'));
  assert.ok(mail.text.includes('Rule:     any change (the target has no alert rule)'));
});

test('a monitor without a name is named by its URL', async () => {
  const target: Target = { id: 'body', kind: 'text', selection: { scope: 'page' }, rule: 'changed' };
  const a = await emailAccount({ url: 'https://news.example/front', targets: [target] });
  await insertNotifiedChange(t, {
    accountId: a.accountId,
    monitorId: a.monitorId,
    channels: ['email'],
    targetId: 'body',
    kind: 'text',
    ruleMatches: [{ target_id: 'body', rule: 'changed' }],
    before: { value: 'short', display: 'short' },
    after: { value: 'longer', display: 'longer' },
  });

  await testDispatcher(t).runOnce();
  const [mail] = smtp.mails;
  assert.ok(mail);
  assert.equal(mail.headers.get('subject'), '[pagewatch] body changed on https://news.example/front');
  assert.ok(mail.text.includes('Monitor:  https://news.example/front\n'));
  assert.ok(mail.text.includes('Target:   body\n'));
});

const LOREM = Array.from({ length: 40 }, (_, i) => `Lorem ipsum dolor sit amet, consectetur adipiscing elit ${i}.`).join('\n');

test('a change near the end of a long text shows in both parts, with a little context', async () => {
  const target: Target = { id: 'body', label: 'Dates', kind: 'text', selection: { scope: 'page' }, rule: 'changed' };
  const a = await emailAccount({ name: 'Events', targets: [target] });
  const before = `${LOREM}\nNext date: November`;
  const after = `${LOREM}\nNext date: December`;
  await insertNotifiedChange(t, {
    accountId: a.accountId,
    monitorId: a.monitorId,
    channels: ['email'],
    targetId: 'body',
    kind: 'text',
    ruleMatches: [{ target_id: 'body', rule: 'changed' }],
    before: { value: before, display: before },
    after: { value: after, display: after },
    texts: { before, after },
  });

  await testDispatcher(t).runOnce();
  const [mail] = smtp.mails;
  assert.ok(mail);
  assert.equal(mail.headers.get('subject'), '[pagewatch] Dates changed on Events');
  assert.ok(
    mail.text.includes(
      'What changed:\n@@ -38,4 +38,4 @@\n  Lorem ipsum dolor sit amet, consectetur adipiscing elit 37.\n' +
        '  Lorem ipsum dolor sit amet, consectetur adipiscing elit 38.\n  Lorem ipsum dolor sit amet, consectetur adipiscing elit 39.\n' +
        '- Next date: November\n+ Next date: December\n',
    ),
    mail.text,
  );
  assert.ok(!mail.text.includes('elit 36.'), 'only a little context');
  assert.match(
    mail.html,
    /<span style="[^"]*line-through">- Next date: November<\/span>\n<span style="[^"]*">\+ Next date: December<\/span>/,
  );
});

test('a text too large to compare in detail says so, with the changed lines', async () => {
  const target: Target = { id: 'body', kind: 'text', selection: { scope: 'page' }, rule: 'changed' };
  const a = await emailAccount({ targets: [target] });
  const lines = Array.from({ length: 3000 }, (_, i) => `line ${i}`);
  const before = lines.join('\n');
  const after = lines.map((l, i) => (i % 2 === 0 ? l.toUpperCase() : l)).join('\n');
  await insertNotifiedChange(t, {
    accountId: a.accountId,
    monitorId: a.monitorId,
    channels: ['email'],
    targetId: 'body',
    kind: 'text',
    before: { value: 'line 0', display: 'line 0' },
    after: { value: 'LINE 0', display: 'LINE 0' },
    texts: { before, after },
  });
  await testDispatcher(t).runOnce();
  assert.ok(
    smtp.mails[0]!.text.includes(
      'The texts are too large to compare in detail; the changes lie within lines 1–2999 before, lines 1–2999 after.',
    ),
    smtp.mails[0]!.text,
  );
});

test('a links alert lists the new links and its subject says new links', async () => {
  const target: Target = {
    id: 'news',
    label: 'News',
    kind: 'links',
    selection: { scope: 'selector', selector: '#news' },
    rule: 'new_links',
  };
  const a = await emailAccount({ name: 'Blog', targets: [target] });
  const before = ['https://blog.example/a', 'https://blog.example/b', 'https://blog.example/old'];
  const after = ['https://blog.example/a', 'https://blog.example/b', 'https://blog.example/new'];
  await insertNotifiedChange(t, {
    accountId: a.accountId,
    monitorId: a.monitorId,
    channels: ['email'],
    targetId: 'news',
    kind: 'links',
    ruleMatches: [{ target_id: 'news', rule: 'new_links' }],
    before: { value: before, display: null },
    after: { value: after, display: null },
  });
  await testDispatcher(t).runOnce();
  const [mail] = smtp.mails;
  assert.ok(mail);
  assert.equal(mail.headers.get('subject'), '[pagewatch] a new link on Blog');
  assert.ok(
    mail.text.includes('What changed:\nNew links:\n+ https://blog.example/new\nLinks gone:\n- https://blog.example/old\n'),
    mail.text,
  );
  assert.ok(!mail.text.includes('https://blog.example/a'), 'links that stayed are not listed');
  assert.match(mail.html, /<span style="[^"]*">\+ https:\/\/blog\.example\/new<\/span>/);
});

test("times are shown in the account's time zone", async () => {
  const a = await emailAccount();
  await t.db.query("UPDATE accounts SET time_zone = 'Europe/Berlin' WHERE id = $1", [a.accountId]);
  await insertNotifiedChange(t, { accountId: a.accountId, monitorId: a.monitorId, channels: ['email'] });
  await testDispatcher(t).runOnce();
  // The test clock is in winter, when Berlin is UTC+1 (CET).
  const berlin = String((t.clock.now().getUTCHours() + 1) % 24).padStart(2, '0');
  const minutes = String(t.clock.now().getUTCMinutes()).padStart(2, '0');
  assert.match(
    smtp.mails[0]!.text,
    new RegExp(`\nDetected: \\d{1,2} [A-Z][a-z]{2} \\d{4}, ${berlin}:${minutes} CET \\(Europe/Berlin\\)\n`),
  );
});

test('an email of several changes has one intro, in the text and in the HTML part', async () => {
  const a = await emailAccount({ name: 'Espresso machine' });
  const { changeId: first } = await insertNotifiedChange(t, { accountId: a.accountId, monitorId: a.monitorId, channels: [] });
  const { changeId: second } = await insertNotifiedChange(t, {
    accountId: a.accountId,
    monitorId: a.monitorId,
    channels: [],
    kind: 'availability',
    targetId: 'stock',
    ruleMatches: [{ target_id: 'stock', rule: 'unavailable' }],
    before: { value: 'in_stock', display: null },
    after: { value: 'out_of_stock', display: null },
  });
  await t.db.transaction((tx) =>
    enqueueNotification(tx, {
      changeId: first,
      accountId: a.accountId,
      channel: 'email',
      at: t.clock.now(),
      data: { check_id: randomUUID(), change_ids: [first, second] },
    }),
  );
  await testDispatcher(t).runOnce();
  const [mail] = smtp.mails;
  assert.ok(mail);
  assert.equal(mail.headers.get('subject'), '[pagewatch] 2 changes on Espresso machine');
  assert.equal(mail.text.split('pagewatch detected').length - 1, 1, mail.text);
  assert.equal(mail.html.split('pagewatch detected').length - 1, 1, mail.html);
  assert.ok(mail.html.includes('<p>pagewatch detected 2 changes on Espresso machine in one check.</p>'));
  assert.ok(mail.text.includes('Stock: in stock → out of stock'), mail.text);
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
