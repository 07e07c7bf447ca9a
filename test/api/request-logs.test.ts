import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import pino from 'pino';
import { buildApp } from '../../src/api/app.ts';
import { loadConfig } from '../../src/config.ts';
import { createLoaders } from '../../src/engine/loaders.ts';
import { createMetrics } from '../../src/metrics.ts';
import { ManualClock } from '../helpers/manual-clock.ts';
import { openTestDatabase } from '../helpers/test-database.ts';

// Probes (/healthz, /readyz, /metrics) arrive every few seconds from load
// balancers and Prometheus: their request logs are for LOG_LEVEL debug only.

async function requestLogs(level: 'info' | 'debug'): Promise<string[]> {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  const config = loadConfig({ LOG_LEVEL: level });
  const db = await openTestDatabase();
  const app = await buildApp(
    { config, db, clock: new ManualClock(), loaders: createLoaders(config), metrics: createMetrics() },
    { logger: pino({ level }, sink) },
  );
  try {
    for (const url of ['/healthz', '/readyz', '/metrics', '/api/v1/openapi.json']) await app.inject({ method: 'GET', url });
  } finally {
    await app.close();
    await db.close();
  }
  return lines.map((line) => JSON.parse(line) as { msg: string; req?: { url: string } }).filter((l) => l.msg === 'incoming request').map((l) => l.req!.url);
}

test('at info, probe requests are not logged; other requests are', async () => {
  assert.deepEqual(await requestLogs('info'), ['/api/v1/openapi.json']);
});

test('at debug, probe requests are logged too', async () => {
  assert.deepEqual(await requestLogs('debug'), ['/healthz', '/readyz', '/metrics', '/api/v1/openapi.json']);
});
