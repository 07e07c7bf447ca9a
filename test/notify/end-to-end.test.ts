import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Target } from '../../src/domain/targets.ts';
import type { SteppedEngine } from '../../src/engine/scheduler.ts';
import { verifyWebhook } from '../../packages/client/src/index.ts';
import { admin, bearer, createAccountWithToken, type TestApp } from '../helpers/test-app.ts';
import type { FixtureServer } from '../helpers/fixture-server.ts';
import type { MailCatcher } from '../helpers/mail-catcher.ts';
import { useNotifyingWorld } from '../helpers/notifying-world.ts';
import { watchPage } from '../helpers/watched-page.ts';
import type { WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { testDispatcher } from '../helpers/notification-rows.ts';

// From a page that changes to the notifications about it: the engine detects
// the change and writes the outbox, the dispatcher sends from it.

let t: TestApp, site: FixtureServer, engine: SteppedEngine, smtp: MailCatcher, receiver: WebhookReceiver;
useNotifyingWorld({}, (w) => ({ t, site, engine, smtp, receiver } = w));

const PRICE_BELOW: Target = {
  id: 'price',
  label: 'Price',
  kind: 'price',
  selection: { scope: 'selector', selector: '#price' },
  currency: 'EUR',
  rule: 'below',
  threshold: '25.00',
};

test('a price that crosses below the threshold is emailed and POSTed once; a change no rule matched notifies nobody', async () => {
  const account = await createAccountWithToken(t.app);
  const secret = (await admin(t.app, 'PATCH', `/accounts/${account.accountId}`, { webhook_url: `${receiver.url}/hook` })).json().data
    .webhook_secret as string;
  const page = await watchPage(t, site, engine, {
    accountId: account.accountId,
    targets: [PRICE_BELOW],
    emailEnabled: true,
    webhookEnabled: true,
  });
  const dispatcher = testDispatcher(t);

  await page.check();
  await page.check({ price: '€27.00' });
  assert.deepEqual(await dispatcher.runOnce(), [], 'a price change above the threshold matches no rule');

  await page.check({ price: '€24.50' });
  const reports = await dispatcher.runOnce();
  assert.deepEqual(reports.map((r) => [r.channel, r.outcome]).sort(), [
    ['email', 'delivered'],
    ['webhook', 'delivered'],
  ]);
  assert.deepEqual(await dispatcher.runOnce(), []);

  const listed = await t.app.inject({
    method: 'GET',
    url: `/api/v1/changes?monitor_id=${page.monitorId}&matched=true`,
    headers: bearer(account.token),
  });
  const [change] = listed.json().data;
  assert.equal(receiver.received.length, 1);
  const [delivery] = receiver.received;
  assert.ok(delivery);
  assert.equal(verifyWebhook(secret, delivery.headers, delivery.body, { now: t.clock.now() }).ok, true);
  const { check_id: checkId, diff, ...data } = JSON.parse(delivery.body.toString()).data;
  assert.deepEqual(data, { change, monitor: { id: page.monitorId, url: page.url, name: null }, added_links: [] });
  const detail = await t.app.inject({ method: 'GET', url: `/api/v1/changes/${change.id}`, headers: bearer(account.token) });
  assert.deepEqual(diff, { detail: detail.json().data.diff_detail, unified: detail.json().data.diff, hunks: detail.json().data.hunks });
  assert.match(checkId, /^[0-9a-f-]{36}$/, 'the check that found the change');

  assert.equal(smtp.mails.length, 1);
  const { text } = smtp.mails[0]!;
  for (const line of [
    `Monitor:  ${page.url}`,
    'Target:   Price',
    'Rule:     below: the price fell below the threshold',
    `Price: ${change.before.display} → ${change.after.display}`,
  ]) {
    assert.ok(text.includes(line), `"${line}" in:\n${text}`);
  }
});

test('one check that changes three targets sends one email listing the three, and three webhooks sharing its check_id', async () => {
  const account = await createAccountWithToken(t.app);
  await admin(t.app, 'PATCH', `/accounts/${account.accountId}`, { webhook_url: `${receiver.url}/grouped` });
  const targets: Target[] = [
    { id: 'title', label: 'Title', kind: 'text', selection: { scope: 'selector', selector: '#title' }, rule: 'changed' },
    { id: 'price', label: 'Price', kind: 'price', selection: { scope: 'selector', selector: '#price' }, currency: 'EUR', rule: 'changed' },
    { id: 'stock', label: 'Stock', kind: 'availability', selection: { scope: 'selector', selector: '#stock' }, rule: 'changed' },
  ];
  const page = await watchPage(t, site, engine, { accountId: account.accountId, targets, emailEnabled: true, webhookEnabled: true });
  const dispatcher = testDispatcher(t);
  await page.check();
  const mailsBefore = smtp.mails.length;
  await page.check({ title: 'Espresso Trio', price: '€31.00', stock: 'Out of stock' });
  await dispatcher.runOnce();
  assert.equal(smtp.mails.length - mailsBefore, 1, 'one email for the check');
  const mail = smtp.mails.at(-1)!;
  assert.match(mail.headers.get('subject') as string, /^\[pagewatch\] 3 changes on /);
  for (const label of ['Target:   Title', 'Target:   Price', 'Target:   Stock']) assert.ok(mail.text.includes(label), mail.text);
  const hooks = receiver.received.filter((r) => r.path === '/grouped').map((r) => JSON.parse(r.body.toString()).data);
  assert.equal(hooks.length, 3, 'one webhook per change');
  assert.equal(new Set(hooks.map((h) => h.check_id)).size, 1, 'all from the same check');
});
