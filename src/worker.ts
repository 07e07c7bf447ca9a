import Fastify, { type FastifyInstance } from 'fastify';
import { vetProxyAddresses } from './fetch/proxy/proxy-tunnel.ts';
import { createLogger } from './http/logger.ts';
import { listenAnnounced } from './http/startup-log.ts';
import { serverTimeouts } from './http/connection-limits.ts';
import { operationsRoutes } from './http/operations.ts';
import { systemClock } from './clock.ts';
import type { Config } from './config.ts';
import { createLoaders, type Loaders } from './fetch/loaders.ts';
import type { EngineLogger } from './engine/engine-logger.ts';
import { createEngine, type Engine } from './engine/scheduler.ts';
import { createMetrics, type Metrics } from './process-metrics.ts';
import { createDispatcher, type DispatcherLogger } from './notify/dispatcher.ts';
import { runUntilSignalled } from './signals.ts';
import type { Database } from './store/database.ts';
import { openDatabase } from './store/open-database.ts';

// The background half of pagewatch: the scheduler with its check workers and
// the notification dispatcher. `pagewatch serve` runs it next to the API;
// `pagewatch worker` runs it alone against a shared PostgreSQL, with a small
// HTTP listener for health checks and Prometheus, as its checks and
// deliveries are counted in its own process.

export interface Background {
  engine: Engine;
  /** Stops claiming, lets checks under way finish within the shutdown grace, hands the rest back. */
  stop(): Promise<void>;
}

export function startBackground(
  config: Config,
  db: Database,
  loaders: Loaders,
  metrics: Metrics,
  logger: EngineLogger & DispatcherLogger,
): Background {
  const engine = createEngine({
    db,
    clock: systemClock,
    loaders,
    secretsKey: config.secretsKey,
    plans: config.plans,
    tickSeconds: config.tickSeconds,
    logger,
    concurrency: config.workerConcurrency,
    leaseSeconds: config.leaseSeconds,
    metrics,
  });
  // Notification delivery from the outbox; leased, so any number of processes may run it.
  const notifications = createDispatcher({
    db,
    clock: systemClock,
    config,
    policy: loaders.policy,
    logger,
    metrics,
    leaseSeconds: config.leaseSeconds,
    extraction: loaders.extraction,
  });
  engine.start();
  notifications.start();
  return {
    engine,
    async stop() {
      await Promise.all([engine.stop({ graceMs: config.shutdownGraceSeconds * 1000 }), notifications.stop()]);
    },
  };
}

export interface RunningWorker {
  /** /healthz, /readyz and /metrics of this worker */
  app: FastifyInstance;
  db: Database;
  engine: Engine;
  stop(): Promise<void>;
}

export async function startWorker(config: Config): Promise<RunningWorker> {
  // A proxy on a private address the operator did not name private stops the start (DESIGN §5 Outbound proxies).
  await vetProxyAddresses(config.proxies);
  const db = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    pgliteSharedBuffersMiB: config.pgliteSharedBuffersMiB,
  });
  const metrics = createMetrics({ processMetrics: true });
  const loaders = createLoaders(config, {}, metrics);
  const app = Fastify({
    loggerInstance: createLogger(config.logLevel),
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    ...serverTimeouts(config),
  });
  await app.register(operationsRoutes, { config, db, clock: systemClock, loaders, metrics });
  try {
    await listenAnnounced(
      app,
      { port: config.port, host: config.host },
      (address) =>
        `pagewatch worker listening on ${address} (/healthz, /readyz, /metrics); ` +
        `${config.workerConcurrency} checks at once, every ${config.tickSeconds} s`,
    );
  } catch (err) {
    await loaders.close();
    await db.close();
    throw err;
  }
  const background = startBackground(config, db, loaders, metrics, app.log);
  let stopping: Promise<void> | null = null;
  const stop = () =>
    (stopping ??= (async () => {
      await Promise.all([app.close(), background.stop()]);
      await loaders.close();
      await db.close();
    })());
  return { app, db, engine: background.engine, stop };
}

/** `pagewatch worker`: checks and notifications until SIGTERM/SIGINT, then drains and exits. */
export async function workUntilSignalled(config: Config): Promise<void> {
  const worker = await startWorker(config);
  await runUntilSignalled(
    () => worker.stop(),
    (message) => worker.app.log.info(message),
  );
}
