import { after, before } from 'node:test';
import type { SteppedEngine } from '../../src/engine/scheduler.ts';
import { startFixtureServer, type FixtureServer } from './fixture-server.ts';
import { startTestApp, type TestApp, type TestAppOptions } from './test-app.ts';
import { startTestEngine } from './test-engine.ts';

/** What most engine, change and manual-check tests run against. */
export interface MonitoringWorld {
  t: TestApp;
  /** the local fixture web server the monitors point at */
  site: FixtureServer;
  /** an engine on the app's store and clock; its loop is not started */
  engine: SteppedEngine;
}

/**
 * Starts a test app, a fixture site and an engine before the file's tests and
 * closes them after; `use` receives them once started, e.g.
 * `useMonitoringWorld({}, (w) => ({ t, site, engine } = w))`.
 */
export function useMonitoringWorld(app: TestAppOptions, use: (world: MonitoringWorld) => void): void {
  let world: MonitoringWorld | null = null;
  before(async () => {
    const t = await startTestApp(app);
    const site = await startFixtureServer();
    world = { t, site, engine: startTestEngine(t) };
    use(world);
  });
  after(async () => {
    if (!world) return;
    await world.engine.stop();
    await world.t.close();
    await world.site.close();
  });
}
