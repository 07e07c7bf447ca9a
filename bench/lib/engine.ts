import { systemClock } from '../../src/clock.ts';
import { loadConfig } from '../../src/config.ts';
import { createLoaders, type Loaders, type LoaderSettings } from '../../src/fetch/loaders.ts';
import { createSteppedEngine, type SteppedEngine } from '../../src/engine/scheduler.ts';
import { createMetrics } from '../../src/process-metrics.ts';
import type { Database } from '../../src/store/database.ts';
import { benchPlans } from './plans.ts';

// The production engine (scheduler loop, leases, loaders, commits) on the
// system clock, trusting loopback like the tests do, with benchmark plans.
// BENCH_TICK_SECONDS sets the scheduler cycle, default 1 s: a loop that
// leaves a slot empty waits for the next cycle (docs/decisions/0001-scheduler-a-slot-freed-during-a-claim-waits.md), and
// with production's 60 s that wait, not the engine's work, is what a
// throughput figure would measure. PRODUCTION_TICK_SECONDS is production's.

export const TICK_SECONDS = Number(process.env.BENCH_TICK_SECONDS ?? 1);
export const PRODUCTION_TICK_SECONDS = loadConfig({}).tickSeconds;

export function benchLoaders(settings: LoaderSettings = {}): Loaders {
  const config = loadConfig({ LOG_LEVEL: 'silent', PAGEWATCH_ALLOW_PRIVATE_NETWORKS: '127.0.0.0/8' });
  return createLoaders(config, settings);
}

/**
 * The engine with its own metrics, as /metrics reports them: `recorded()`
 * counts the checks it recorded, so a benchmark can wait for them without
 * polling the store (a query every 100 ms would be load on the store it measures).
 */
export function benchEngine(
  db: Database,
  loaders: Loaders,
  concurrency: number,
  tickSeconds = TICK_SECONDS,
): SteppedEngine & { recorded(): Promise<number> } {
  const metrics = createMetrics({ processMetrics: false });
  const engine = createSteppedEngine({
    db,
    clock: systemClock,
    loaders,
    plans: benchPlans(),
    tickSeconds,
    // No info lines: a line per check would be part of what is measured.
    logger: {
      info: () => undefined,
      error: (details, message) => console.error(message, details),
      warn: (details, message) => console.warn(message, details),
    },
    concurrency,
    metrics,
  });
  return Object.assign(engine, {
    async recorded() {
      const { values } = await metrics.checks.get();
      return values.filter((v) => v.labels.outcome === 'recorded').reduce((sum, v) => sum + v.value, 0);
    },
  });
}
