import type { FastifyInstance } from 'fastify';
import { systemClock } from './clock.ts';
import type { Config } from './config.ts';
import { buildApp } from './api/app.ts';
import { createLoaders } from './engine/loaders.ts';
import type { Engine } from './engine/scheduler.ts';
import { startEngine } from './worker.ts';
import { createMetrics } from './metrics.ts';
import { createDispatcher } from './notify/dispatcher.ts';
import { openDatabase } from './store/open-database.ts';
import { countAccounts } from './store/accounts-store.ts';
import type { Database } from './store/database.ts';

export interface RunningServer {
  app: FastifyInstance;
  db: Database;
  /** the scheduler and check workers, null when this process serves HTTP only (pagewatch api) */
  engine: Engine | null;
  /** Stops accepting connections and the engine, lets in-flight requests and checks finish, closes the store. */
  stop(): Promise<void>;
}

function firstRunHelp(config: Config): string {
  const admin = config.adminToken
    ? 'pagewatch admin'
    : 'PAGEWATCH_ADMIN_TOKEN=<secret> must be set on the server first; then pagewatch admin';
  return [
    'No accounts yet. Create the first account and an API token through the operator API:',
    `  export PAGEWATCH_URL=http://${config.host}:${config.port} PAGEWATCH_ADMIN_TOKEN=<the server's secret>`,
    `  ${admin} accounts create --email you@example.com --plan pro`,
    `  ${admin.replace(/^.*; then /, '')} tokens create --account <account id> --name server --scopes monitors:read,monitors:write,changes:read,usage:read,checks:write --days 90`,
  ].join('\n');
}

/** `pagewatch serve` / `pagewatch api`: opens the store, serves HTTP, stops cleanly on SIGTERM/SIGINT. */
export interface ServerRoles {
  /** run the scheduler and check workers in this process; default true (pagewatch serve) */
  engine: boolean;
}

export async function startServer(config: Config, roles: ServerRoles = { engine: true }): Promise<RunningServer> {
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  const loaders = createLoaders(config);
  const metrics = createMetrics({ processMetrics: true });
  const app = await buildApp({ config, db, clock: systemClock, loaders, metrics });
  await app.listen({ port: config.port, host: config.host });
  const store = config.databaseUrl ? 'PostgreSQL' : `embedded store in ${config.dataDir}`;
  app.log.info(`pagewatch listening on ${config.publicUrl} (${store})`);
  console.log(`pagewatch listening on http://${config.host}:${config.port} (${store})`);
  if ((await countAccounts(db)) === 0) console.log(firstRunHelp(config));
  const engine = roles.engine ? startEngine(config, db, loaders, app.log) : null;
  // Notification delivery from the outbox; leased, so any number of processes may run it.
  const notifications = createDispatcher({ db, clock: systemClock, config, policy: loaders.policy, logger: app.log });
  notifications.start();

  let stopping: Promise<void> | null = null;
  const stop = () =>
    (stopping ??= (async () => {
      await Promise.all([app.close(), notifications.stop(), engine?.stop()]);
      await loaders.close();
      await db.close();
    })());
  return { app, db, engine, stop };
}

/** Runs until SIGTERM/SIGINT, then drains and exits. */
export async function serveUntilSignalled(config: Config, roles?: ServerRoles): Promise<void> {
  const server = await startServer(config, roles);
  await new Promise<void>((resolve) => {
    const onSignal = (signal: string) => {
      server.app.log.info(`${signal}: draining`);
      server.stop().then(resolve, (err) => {
        console.error(err);
        resolve();
      });
    };
    process.once('SIGTERM', onSignal);
    process.once('SIGINT', onSignal);
  });
}
