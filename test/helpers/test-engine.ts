import pino from 'pino';
import { createSteppedEngine, type SteppedEngine, type EngineOptions } from '../../src/engine/scheduler.ts';
import { nextCheckAt } from './monitor-rows.ts';
import type { TestApp } from './test-app.ts';

/** The monitoring engine on the test app's store, clock and loaders. */
export function startTestEngine(t: TestApp, options: Partial<EngineOptions> = {}): SteppedEngine {
  return createSteppedEngine({
    db: t.db,
    clock: t.clock,
    loaders: t.loaders,
    secretsKey: t.config.secretsKey,
    plans: t.config.plans,
    tickSeconds: t.config.tickSeconds,
    logger: pino({ level: 'silent' }),
    concurrency: 4,
    ...options,
  });
}

/** Moves the manual clock to the monitor's next due time (never backwards). */
export async function advanceToDue(t: TestApp, monitorId: string): Promise<void> {
  const due = await nextCheckAt(t.db, monitorId);
  if (due > t.clock.now()) t.clock.set(due);
}
