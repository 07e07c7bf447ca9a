import { after, before, beforeEach } from 'node:test';
import { startTestApp, type TestApp, type TestAppOptions } from './test-app.ts';
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver.ts';

export interface WebhookWorld {
  t: TestApp;
  receiver: WebhookReceiver;
}

/**
 * A test app and a webhook receiver for the file's tests. Before each test the
 * receiver forgets what it got and notifications an earlier test left pending
 * are put out of the way, so each test sees only its own.
 */
export function useWebhookWorld(app: TestAppOptions, use: (world: WebhookWorld) => void): void {
  let world: WebhookWorld | null = null;
  before(async () => {
    world = { t: await startTestApp(app), receiver: await startWebhookReceiver() };
    use(world);
  });
  after(async () => {
    if (!world) return;
    await world.t.close();
    await world.receiver.close();
  });
  beforeEach(async () => {
    world!.receiver.reset();
    await world!.t.db.query("UPDATE notification_outbox SET status = 'failed' WHERE status = 'pending'");
  });
}
