import pino from 'pino';
import { systemClock } from './clock.ts';
import type { Config } from './config.ts';
import { createLoaders, type Loaders } from './engine/loaders.ts';
import { createEngine, type Engine, type EngineLogger } from './engine/scheduler.ts';
import type { Database } from './store/database.ts';
import { openDatabase } from './store/open-database.ts';

// The monitoring engine as a process part: `pagewatch serve` runs it next to
// the API, `pagewatch worker` runs it alone against a shared PostgreSQL.

/** Starts the scheduler loop with the configured worker concurrency. */
export function startEngine(config: Config, db: Database, loaders: Loaders, logger: EngineLogger): Engine {
  const engine = createEngine({
    db,
    clock: systemClock,
    loaders,
    plans: config.plans,
    tickSeconds: config.tickSeconds,
    logger,
    concurrency: config.workerConcurrency,
  });
  engine.start();
  return engine;
}

/** `pagewatch worker`: checks only, until SIGTERM/SIGINT; then hands unfinished checks back and exits. */
export async function workUntilSignalled(config: Config): Promise<void> {
  const logger = pino({ level: config.logLevel });
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  const loaders = createLoaders(config);
  const engine = startEngine(config, db, loaders, logger);
  logger.info(`pagewatch worker running ${config.workerConcurrency} checks at once, every ${config.tickSeconds} s`);
  await new Promise<void>((resolve) => {
    const onSignal = (signal: string) => {
      logger.info(`${signal}: stopping`);
      resolve();
    };
    process.once('SIGTERM', onSignal);
    process.once('SIGINT', onSignal);
  });
  await engine.stop();
  await loaders.close();
  await db.close();
}
