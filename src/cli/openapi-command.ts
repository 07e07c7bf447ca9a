import { systemClock } from '../clock.ts';
import type { Config } from '../config.ts';
import { buildApp } from '../http/app.ts';
import { openDatabase } from '../store/open-database.ts';
import { createLoaders } from '../fetch/loaders.ts';
import { createMetrics } from '../process-metrics.ts';

/** Prints the OpenAPI document the server would serve, from an in-memory store. */
export async function printOpenApi(config: Config): Promise<void> {
  const db = await openDatabase({ databaseUrl: null, dataDir: null });
  const loaders = createLoaders(config);
  // The document describes the operator API too, which a server has only when its operator token is set.
  const described = { ...config, logLevel: 'silent', adminToken: config.adminToken ?? 'openapi-document-operator-token' };
  const app = await buildApp({ config: described, db, clock: systemClock, loaders, metrics: createMetrics() });
  const response = await app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
  await app.close();
  await loaders.close();
  await db.close();
  process.stdout.write(`${JSON.stringify(response.json(), null, 2)}\n`);
}
