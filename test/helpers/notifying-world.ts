import { after, before } from 'node:test';
import type { SteppedEngine } from '../../src/engine/scheduler.ts';
import { startFixtureServer, type FixtureServer } from './fixture-server.ts';
import { startMailCatcher, type MailCatcher } from './mail-catcher.ts';
import { startTestApp, type TestApp } from './test-app.ts';
import { startTestEngine } from './test-engine.ts';
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver.ts';

/** Everything from a watched page to its notifications: app (with SMTP), engine, fixture site, SMTP server, webhook receiver. */
export interface NotifyingWorld {
  t: TestApp;
  site: FixtureServer;
  engine: SteppedEngine;
  smtp: MailCatcher;
  receiver: WebhookReceiver;
}

/** Starts a notifying world before the file's tests and closes it after; `env` adds to the app's environment. */
export function useNotifyingWorld(env: Record<string, string>, use: (world: NotifyingWorld) => void): void {
  let world: NotifyingWorld | null = null;
  before(async () => {
    const smtp = await startMailCatcher();
    const receiver = await startWebhookReceiver();
    const site = await startFixtureServer();
    const t = await startTestApp({ env: { PAGEWATCH_SMTP_URL: smtp.url, ...env } });
    world = { t, site, engine: startTestEngine(t), smtp, receiver };
    use(world);
  });
  after(async () => {
    if (!world) return;
    await world.engine.stop();
    await world.t.close();
    await world.site.close();
    await world.smtp.close();
    await world.receiver.close();
  });
}
