import { after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import type { SteppedEngine } from '../../src/engine/scheduler.ts';
import { bearer, createAccountWithToken, type TestApp } from './test-app.ts';
import type { FixtureServer } from './fixture-server.ts';
import { PRICE, watchPage } from './watched-page.ts';
import { patchMonitor } from './monitor-api.ts';
import { testDispatcher } from './notification-rows.ts';
import { useMonitoringWorld, type MonitoringWorld } from './monitoring-world.ts';
import { startServiceReceivers, type ServiceReceivers } from './service-receivers.ts';
import { startMailCatcher, type MailCatcher } from './mail-catcher.ts';

// A customer's chat channel (issue #39) over the API: a channel made from a
// pasted URL, chosen by a monitor of the fixture shop page.

/**
 * A monitoring world whose channels' services and mail go to local stand-ins (`env` adds settings). Before each test
 * the stand-ins forget what they received and alerts an earlier test left pending are set aside.
 */
export async function useChannelWorld(
  env: Record<string, string>,
  use: (world: MonitoringWorld) => void,
): Promise<{ services: ServiceReceivers; smtp: MailCatcher }> {
  const services = await startServiceReceivers();
  const smtp = await startMailCatcher();
  let t: TestApp | undefined;
  useMonitoringWorld({ env: { PAGEWATCH_CHANNEL_HOST_OVERRIDES: services.overrides, PAGEWATCH_SMTP_URL: smtp.url, ...env } }, (w) => {
    t = w.t;
    use(w);
  });
  after(async () => {
    await services.close();
    await smtp.close();
  });
  beforeEach(async () => {
    services.reset();
    smtp.reset();
    if (t) await t.db.query("UPDATE notification_outbox SET status = 'failed' WHERE status = 'pending'");
  });
  return { services, smtp };
}

/** A new account's monitor of the shop page whose alerts go to one channel made from `url`, checked once. */
export async function monitorWithChannel(t: TestApp, site: FixtureServer, engine: SteppedEngine, url: string) {
  const account = await createAccountWithToken(t.app);
  const made = await t.app.inject({
    method: 'POST',
    url: '/api/v1/channels',
    headers: { ...bearer(account.token), 'content-type': 'application/json' },
    payload: JSON.stringify({ name: 'team', url }),
  });
  assert.equal(made.statusCode, 201, made.body);
  const channelId = made.json().data.id as string;
  const page = await watchPage(t, site, engine, { accountId: account.accountId, targets: [PRICE], emailEnabled: false });
  const patched = await patchMonitor(t.app, account.token, page.monitorId, { notifications: { channels: [channelId] } });
  assert.equal(patched.statusCode, 200, patched.body);
  assert.deepEqual(patched.json().data.notifications.channels, [channelId]);
  await page.check();
  return { ...account, channelId, page, dispatcher: testDispatcher(t) };
}

/** The same with a price drop queued for the channel, not yet sent; the outbox row's id. */
export async function queuedChannelChange(t: TestApp, site: FixtureServer, engine: SteppedEngine, url: string) {
  const w = await monitorWithChannel(t, site, engine, url);
  await w.page.check({ price: '€24.99' });
  const [row] = await t.db.query<{ id: string }>("SELECT id FROM notification_outbox WHERE channel = 'chat' AND channel_id = $1", [
    w.channelId,
  ]);
  return { ...w, outboxId: row!.id };
}
