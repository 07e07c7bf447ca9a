import type { FastifyInstance } from 'fastify';
import { vetProxyAddresses } from './fetch/proxy/proxy-tunnel.ts';
import { systemClock } from './clock.ts';
import type { Config } from './config.ts';
import { buildApp } from './http/app.ts';
import { listenAnnounced, startupLog } from './http/startup-log.ts';
import { createLoaders } from './fetch/loaders.ts';
import type { Engine } from './engine/scheduler.ts';
import { startBackground } from './worker.ts';
import { createMetrics } from './process-metrics.ts';
import { runUntilSignalled } from './signals.ts';
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

/** The commands that create the first account and an API token, for the first-run line. */
function firstRunCommands(config: Config, port: number): string[] {
  const admin = config.adminToken
    ? 'pagewatch admin'
    : 'PAGEWATCH_ADMIN_TOKEN=<secret> must be set on the server first; then pagewatch admin';
  return [
    `export PAGEWATCH_URL=http://${config.host}:${port} PAGEWATCH_ADMIN_TOKEN=<the server's secret>`,
    `${admin} accounts create --email you@example.com --plan pro`,
    `${admin.replace(/^.*; then /, '')} tokens create --account <account id> --name server --scopes monitors:read,monitors:write,changes:read,usage:read,checks:write --days 90`,
  ];
}

/** `pagewatch serve` / `pagewatch api`: opens the store, serves HTTP, stops cleanly on SIGTERM/SIGINT. */
export interface ServerRoles {
  /** run the scheduler, check workers and notification dispatcher in this process; default true (pagewatch serve) */
  engine: boolean;
}

export async function startServer(config: Config, roles: ServerRoles = { engine: true }): Promise<RunningServer> {
  // A proxy on a private address the operator did not name private stops the start (DESIGN §5 Outbound proxies).
  await vetProxyAddresses(config.proxies);
  const db = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    pgliteSharedBuffersMiB: config.pgliteSharedBuffersMiB,
  });
  const metrics = createMetrics({ processMetrics: true });
  const loaders = createLoaders(config, {}, metrics);
  const app = await buildApp({ config, db, clock: systemClock, loaders, metrics });
  const store = config.databaseUrl ? 'PostgreSQL' : `embedded store in ${config.dataDir}`;
  // The bound port, not the configured one: PORT=0 picks a free port.
  const port = await listenAnnounced(
    app,
    { port: config.port, host: config.host },
    (address) => `pagewatch listening on ${address} (${store})`,
  );
  if ((await countAccounts(db)) === 0) {
    startupLog(app.log).info(
      { commands: firstRunCommands(config, port) },
      'No accounts yet: create the first account and an API token through the operator API, with these commands',
    );
  }
  // pagewatch api leaves checks and notification delivery to pagewatch worker processes.
  const background = roles.engine ? startBackground(config, db, loaders, metrics, app.log) : null;

  let stopping: Promise<void> | null = null;
  const stop = () =>
    (stopping ??= (async () => {
      await Promise.all([app.close(), background?.stop()]);
      await loaders.close();
      await db.close();
    })());
  return { app, db, engine: background?.engine ?? null, stop };
}

/** Runs until SIGTERM/SIGINT, then drains and exits. */
export async function serveUntilSignalled(config: Config, roles?: ServerRoles): Promise<void> {
  const server = await startServer(config, roles);
  await runUntilSignalled(
    () => server.stop(),
    (message) => server.app.log.info(message),
  );
}
