import assert from 'node:assert/strict';
import pino from 'pino';
import { createSteppedEngine, type CycleReport, type SteppedEngine, type EngineOptions } from '../../src/engine/scheduler.ts';
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

/**
 * Checks one monitor now: the store's other monitors are paused first (earlier
 * tests', a moved store's: falling due with this one they would take the
 * cycle's claims or the host's slots), the clock is moved to its due time and
 * one engine cycle runs, which must have checked it.
 */
export async function checkDueMonitor(t: TestApp, engine: SteppedEngine, monitorId: string): Promise<CycleReport> {
  await t.db.query("UPDATE monitors SET status = 'paused' WHERE id <> $1", [monitorId]);
  await advanceToDue(t, monitorId);
  const report = await engine.runCycle();
  assert.ok(
    report.claimed.some((item) => item.monitorId === monitorId),
    `the due monitor ${monitorId} was checked`,
  );
  return report;
}
