import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Target } from '../../src/domain/targets.ts';
import type { Engine } from '../../src/engine/scheduler.ts';
import { verifyWebhook } from '../../packages/client/src/index.ts';
import { admin, bearer, createAccountWithToken, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.ts';
import { startMailCatcher, type MailCatcher } from '../helpers/mail-catcher.ts';
import { startTestEngine } from '../helpers/test-engine.ts';
import { watchPage } from '../helpers/watched-page.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { testDispatcher } from '../helpers/notification-rows.ts';

// From a page that changes to the notifications about it: the engine detects
// the change and writes the outbox, the dispatcher sends from it.

let t: TestApp;
let site: FixtureServer;
let engine: Engine;
let smtp: MailCatcher;
let receiver: WebhookReceiver;
before(async () => {
  smtp = await startMailCatcher();
  receiver = await startWebhookReceiver();
  site = await startFixtureServer();
  t = await startTestApp({ env: { PAGEWATCH_SMTP_URL: smtp.url } });
  engine = startTestEngine(t);
});
after(async () => {
  await engine.stop();
  await t.close();
  await site.close();
  await smtp.close();
  await receiver.close();
});

const PRICE_BELOW: Target = {
  id: 'price', label: 'Price', kind: 'price', selection: { scope: 'selector', selector: '#price' }, currency: 'EUR', rule: 'below', threshold: '25.00',
};

test('a price that crosses below the threshold is emailed and POSTed once; a change no rule matched notifies nobody', async () => {
  const account = await createAccountWithToken(t.app);
  const secret = (await admin(t.app, 'PATCH', `/accounts/${account.accountId}`, { webhook_url: `${receiver.url}/hook` })).json().data.webhook_secret as string;
  const page = await watchPage(t, site, engine, { accountId: account.accountId, targets: [PRICE_BELOW], emailEnabled: true, webhookEnabled: true });
  const dispatcher = testDispatcher(t);

  await page.check();
  await page.check({ price: '€27.00' });
  assert.deepEqual(await dispatcher.runOnce(), [], 'a price change above the threshold matches no rule');

  await page.check({ price: '€24.50' });
  const reports = await dispatcher.runOnce();
  assert.deepEqual(reports.map((r) => [r.channel, r.outcome]).sort(), [['email', 'delivered'], ['webhook', 'delivered']]);
  assert.deepEqual(await dispatcher.runOnce(), []);

  const listed = await t.app.inject({ method: 'GET', url: `/api/v1/changes?monitor_id=${page.monitorId}&matched=true`, headers: bearer(account.token) });
  const [change] = listed.json().data;
  assert.equal(receiver.received.length, 1);
  const [delivery] = receiver.received;
  assert.equal(verifyWebhook(secret, delivery.headers, delivery.body, { now: t.clock.now() }).ok, true);
  assert.deepEqual(JSON.parse(delivery.body.toString()).data, { change, monitor: { id: page.monitorId, url: page.url, name: null } });

  assert.equal(smtp.mails.length, 1);
  const { text } = smtp.mails[0];
  for (const line of [`Monitor:  ${page.url}`, 'Target:   Price', 'Rule:     below: the price fell below the threshold', `Before:   ${change.before.display}`, `After:    ${change.after.display}`]) {
    assert.ok(text.includes(line), `"${line}" in:\n${text}`);
  }
});
