import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { buildApp } from '../../src/http/app.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { parsePlans } from '../../src/domain/plans.ts';
import type { Database } from '../../src/store/database.ts';
import { ManualClock } from './manual-clock.ts';
import { openTestDatabase } from './test-database.ts';
import { ADMIN_TOKEN, ALL_SCOPES } from './test-credentials.ts';
import { createLoaders, type Loaders, type LoaderSettings } from '../../src/fetch/loaders.ts';
import { createMetrics, type Metrics } from '../../src/process-metrics.ts';

export interface TestApp {
  app: FastifyInstance;
  db: Database;
  clock: ManualClock;
  config: Config;
  loaders: Loaders;
  metrics: Metrics;
  close(): Promise<void>;
}

export interface TestAppOptions {
  env?: Record<string, string>;
  /** plan overrides, deep-merged like PAGEWATCH_PLANS_FILE */
  plans?: unknown;
  loaders?: LoaderSettings;
  /** the store to use instead of a fresh test database (closed with the app) */
  db?: Database;
  /**
   * the store of another test app, used and left open: a second server on the
   * file's store costs no store of its own (opening one takes seconds)
   */
  sharedDb?: Database;
  /** the app's logger instead of a silent one */
  logger?: FastifyBaseLogger;
}

/** The real application on a fresh isolated database, with a manual clock. */
export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const config: Config = {
    ...loadConfig({
      PAGEWATCH_ADMIN_TOKEN: ADMIN_TOKEN,
      LOG_LEVEL: 'silent',
      PAGEWATCH_ALLOW_PRIVATE_NETWORKS: '127.0.0.0/8',
      // The lowest scrypt cost: the tests are of signing in, not of scrypt, and at
      // the default 2^15 hashing was half of the dashboard files' CPU.
      PAGEWATCH_PASSWORD_HASH_COST: '10',
      ...options.env,
    }),
    ...(options.plans ? { plans: parsePlans(options.plans) } : {}),
  };
  const db = options.sharedDb ?? options.db ?? (await openTestDatabase());
  const clock = new ManualClock();
  const metrics = createMetrics();
  const loaders = createLoaders(config, options.loaders, metrics);
  const app = await buildApp({ config, db, clock, loaders, metrics }, { logger: options.logger });
  return {
    app,
    db,
    clock,
    config,
    loaders,
    metrics,
    async close() {
      await app.close();
      await loaders.close();
      if (!options.sharedDb) await db.close();
    },
  };
}

export async function admin(app: FastifyInstance, method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE', url: string, body?: unknown) {
  return app.inject({
    method,
    url: `/admin/v1${url}`,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    payload: body === undefined ? undefined : JSON.stringify(body),
  });
}

let accountCounter = 0;

/** Creates an account through the operator API and a token for it; returns both. */
export async function createAccountWithToken(
  app: FastifyInstance,
  options: { plan?: 'pro' | 'free'; scopes?: string[]; days?: number } = {},
): Promise<{ accountId: string; token: string; tokenId: string }> {
  const email = `user${++accountCounter}-${Date.now()}@example.com`;
  const account = await admin(app, 'POST', '/accounts', { email, plan: 'pro' });
  if (account.statusCode !== 201) throw new Error(`account: ${account.body}`);
  const accountId = account.json().data.id as string;
  const token = await admin(app, 'POST', `/accounts/${accountId}/tokens`, {
    name: 'test',
    scopes: options.scopes ?? ALL_SCOPES,
    expires_in_days: options.days ?? 30,
  });
  if (token.statusCode !== 201) throw new Error(`token: ${token.body}`);
  if (options.plan === 'free') await admin(app, 'PATCH', `/accounts/${accountId}`, { plan: 'free' });
  return { accountId, token: token.json().data.token, tokenId: token.json().data.id };
}

export function bearer(token: string) {
  return { authorization: `Bearer ${token}` };
}
