import { systemClock } from '../../src/clock.ts';
import { loadConfig } from '../../src/config.ts';
import { createLoaders, type Loaders, type LoaderSettings } from '../../src/engine/loaders.ts';
import { createEngine, type Engine } from '../../src/engine/scheduler.ts';
import type { Database } from '../../src/store/database.ts';
import { benchPlans } from './plans.ts';

// The production engine (scheduler loop, leases, loaders, commits) on the
// system clock, trusting loopback like the tests do, with benchmark plans.
// BENCH_TICK_SECONDS sets the scheduler cycle; the default is production's
// PAGEWATCH_TICK_SECONDS default (60), so the figures are what users get.

export const TICK_SECONDS = Number(process.env.BENCH_TICK_SECONDS ?? loadConfig({}).tickSeconds);

export function benchLoaders(settings: LoaderSettings = {}): Loaders {
  const config = loadConfig({ LOG_LEVEL: 'silent', PAGEWATCH_ALLOW_PRIVATE_NETWORKS: '127.0.0.0/8' });
  return createLoaders(config, settings);
}

export function benchEngine(db: Database, loaders: Loaders, concurrency: number, tickSeconds = TICK_SECONDS): Engine {
  return createEngine({
    db,
    clock: systemClock,
    loaders,
    plans: benchPlans(),
    tickSeconds,
    logger: { error: (details, message) => console.error(message, details) },
    concurrency,
  });
}
