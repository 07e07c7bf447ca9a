import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SteppedEngine } from '../../src/engine/scheduler.ts';
import { verifyWebhook } from '../../packages/client/src/index.ts';
import { admin, bearer, createAccountWithToken, type TestApp } from '../helpers/test-app.ts';
import type { FixtureServer } from '../helpers/fixture-server.ts';
import type { MailCatcher } from '../helpers/mail-catcher.ts';
import { useNotifyingWorld } from '../helpers/notifying-world.ts';
import { PRICE, watchPage } from '../helpers/watched-page.ts';
import type { WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { patchMonitor } from '../helpers/monitor-api.ts';
import { testDispatcher } from '../helpers/notification-rows.ts';

// Failing-check alerts: after N failed checks in a row one monitor.failing
// (email and signed webhook), nothing more while it keeps failing, and one
// monitor.recovered on the first successful check.

let t: TestApp, site: FixtureServer, engine: SteppedEngine, smtp: MailCatcher, receiver: WebhookReceiver;
useNotifyingWorld({ PAGEWATCH_PUBLIC_URL: 'https://watch.example.org' }, (w) => ({ t, site, engine, smtp, receiver } = w));

async function failingWorld(path: string) {
  const account = await createAccountWithToken(t.app);
  const secret = (await admin(t.app, 'PATCH', `/accounts/${account.accountId}`, { webhook_url: `${receiver.url}${path}` })).json().data
    .webhook_secret as string;
  const page = await watchPage(t, site, engine, {
    accountId: account.accountId,
    targets: [PRICE],
    emailEnabled: true,
    webhookEnabled: true,
  });
  const monitor = async () =>
    (await t.app.inject({ method: 'GET', url: `/api/v1/monitors/${page.monitorId}`, headers: bearer(account.token) })).json().data;
  const events = () =>
    receiver.received
      .filter((r) => r.path === path)
      .map((r) => JSON.parse(r.body.toString()) as { type: string; data: Record<string, unknown> });
  return { account, secret, page, monitor, events, dispatcher: testDispatcher(t) };
}

test('three failed checks in a row send one monitor.failing; more failures send nothing; a success sends one monitor.recovered', async () => {
  const w = await failingWorld('/failing-hook');
  await w.page.check();
  await w.page.check({ price: '' });
  await w.page.check();
  assert.equal((await w.monitor()).failing_since, null, 'two failures are not yet failing');
  await w.dispatcher.runOnce();
  assert.deepEqual(w.events(), []);

  await w.page.check();
  const failingAt = t.clock.now().toISOString();
  assert.equal((await w.monitor()).failing_since, failingAt);
  await w.dispatcher.runOnce();
  const [failing] = w.events();
  assert.equal(failing?.type, 'monitor.failing');
  assert.equal(failing?.data.failing_since, failingAt);
  assert.equal(failing?.data.consecutive_failures, 3);
  assert.deepEqual(
    (failing?.data.issues as { code: string }[]).map((i) => i.code),
    ['selector_missing'],
    'the price element is gone',
  );
  const delivery = receiver.received.find((r) => r.path === '/failing-hook')!;
  assert.equal(verifyWebhook(w.secret, delivery.headers, delivery.body, { now: t.clock.now() }).ok, true, 'signed like change.detected');
  const mail = smtp.mails.at(-1)!;
  assert.match(mail.headers.get('subject') as string, /checks are failing$/);
  assert.ok(mail.text.includes(`See the monitor: https://watch.example.org/monitors/${w.page.monitorId}`), mail.text);

  await w.page.check();
  await w.page.check();
  await w.dispatcher.runOnce();
  assert.equal(w.events().length, 1, 'no repeat while it keeps failing');

  await w.page.check({ price: '€29.00' });
  assert.equal((await w.monitor()).failing_since, null);
  await w.dispatcher.runOnce();
  const recovered = w.events()[1];
  assert.equal(recovered?.type, 'monitor.recovered');
  assert.equal(recovered?.data.failing_since, failingAt);
  assert.match(smtp.mails.at(-1)!.headers.get('subject') as string, /checks work again$/);
  await w.page.check();
  await w.dispatcher.runOnce();
  assert.equal(w.events().length, 2, 'nothing more once healthy');
});

test('notifications.failing_after is per monitor, and ?failing=true lists the failing monitors', async () => {
  const w = await failingWorld('/failing-after-hook');
  const patched = await patchMonitor(t.app, w.account.token, w.page.monitorId, { notifications: { failing_after: 1 } });
  assert.equal(patched.json().data.notifications.failing_after, 1);
  await w.page.check();
  await w.page.check({ price: '' });
  assert.notEqual((await w.monitor()).failing_since, null, 'one failure is enough here');
  await w.dispatcher.runOnce();
  assert.deepEqual(
    w.events().map((e) => e.type),
    ['monitor.failing'],
  );
  const listed = await t.app.inject({ method: 'GET', url: '/api/v1/monitors?failing=true', headers: bearer(w.account.token) });
  assert.deepEqual(
    listed.json().data.map((m: { id: string }) => m.id),
    [w.page.monitorId],
  );
  const healthy = await t.app.inject({ method: 'GET', url: '/api/v1/monitors?failing=false', headers: bearer(w.account.token) });
  assert.deepEqual(healthy.json().data, []);
});
