import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { buildApp } from '../../src/http/app.ts';
import { createLogger, redactUrl } from '../../src/http/logger.ts';
import { loadConfig } from '../../src/config.ts';
import { createLoaders } from '../../src/fetch/loaders.ts';
import { createMetrics } from '../../src/process-metrics.ts';
import { ManualClock } from '../helpers/manual-clock.ts';
import { openTestDatabase } from '../helpers/test-database.ts';

// Probes (/healthz, /readyz, /metrics) arrive every few seconds from load
// balancers and Prometheus: their request logs are for LOG_LEVEL debug only.
// Credential-like query parameters never reach the log.

async function requestLogs(level: 'info' | 'debug', urls = ['/healthz', '/readyz', '/metrics', '/api/v1/openapi.json']): Promise<string[]> {
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
    { logger: createLogger(level, sink) },
  );
  try {
    for (const url of urls) await app.inject({ method: 'GET', url });
  } finally {
    await app.close();
    await db.close();
  }
  return lines
    .map((line) => JSON.parse(line) as { msg: string; req?: { url: string } })
    .filter((l) => l.msg === 'incoming request')
    .map((l) => l.req!.url);
}

test('at info, probe requests are not logged; other requests are', async () => {
  assert.deepEqual(await requestLogs('info'), ['/api/v1/openapi.json']);
});

test('at debug, probe requests are logged too', async () => {
  assert.deepEqual(await requestLogs('debug'), ['/healthz', '/readyz', '/metrics', '/api/v1/openapi.json']);
});

test('credential-like query parameters are logged as [redacted]', async () => {
  const logged = await requestLogs('info', ['/api/v1/monitors?access_token=s3cret&limit=5&api_key=k3y&x-amz-signature=abc&Token=t0k']);
  assert.deepEqual(logged, [
    '/api/v1/monitors?access_token=[redacted]&limit=5&api_key=[redacted]&x-amz-signature=[redacted]&Token=[redacted]',
  ]);
});

test('a URL without secrets is logged as it is', () => {
  assert.equal(redactUrl('/api/v1/changes?monitor_id=1&limit=20&keyword=x'), '/api/v1/changes?monitor_id=1&limit=20&keyword=x');
  assert.equal(redactUrl('/healthz'), '/healthz');
});
