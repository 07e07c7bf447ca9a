import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { buildApp } from '../../src/http/app.ts';
import { createLogger } from '../../src/http/logger.ts';
import { redactUrl } from '../../src/http/redact-url.ts';
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
  const withIds = '/api/v1/monitors/0b6f9a3e-9d0c-4b9e-8f57-3c1f1c2a7d10/checks?limit=5&label=keyword&status=active';
  assert.equal(redactUrl(withIds), withIds);
});

const TOKEN = `pwk_${'A1b2-C3d4_'.repeat(4)}xyz`;
const LINK_SECRET = Buffer.from('32 random bytes, as links use...').toString('base64url');

test('a credential-named query parameter is redacted however its name is written: brackets, percent-encoding, NULs, case, camelCase', () => {
  for (const name of [
    'token[]',
    'token%5B%5D',
    'password%00',
    'pass%77ord',
    'PASSWORD',
    'apiKey',
    'user[password]',
    'accesstoken',
    'tok%2565n',
    'x.signature',
  ]) {
    assert.equal(redactUrl(`/api/v1/monitors?limit=5&${name}=hunter2`), `/api/v1/monitors?limit=5&${name}=[redacted]`, name);
  }
});

test('a value shaped like a pagewatch secret is redacted anywhere in the URL: bare, under any name, in the path or a path parameter', () => {
  assert.equal(redactUrl(`/api/v1/monitors?${TOKEN}`), '/api/v1/monitors?[redacted]');
  assert.equal(redactUrl(`/api/v1/monitors?q=${TOKEN}&limit=5`), '/api/v1/monitors?q=[redacted]&limit=5');
  assert.equal(redactUrl(`/api/v1/monitors?q=${encodeURIComponent(TOKEN).replace('_', '%5F')}`), '/api/v1/monitors?q=[redacted]');
  assert.equal(redactUrl(`/set-password?t=${LINK_SECRET}`), '/set-password?t=[redacted]');
  assert.equal(redactUrl(`/feeds/${LINK_SECRET}/atom`), '/feeds/[redacted]/atom');
  assert.equal(redactUrl(`/api/v1/monitors;token=abc/x`), '/api/v1/monitors;token=[redacted]/x');
  assert.equal(redactUrl(`/api/v1/monitors;v=${TOKEN}`), '/api/v1/monitors;v=[redacted]');
});

test('the attacks that once reached the log verbatim are logged redacted by the real server', async () => {
  const logged = await requestLogs('info', [
    '/api/v1/monitors?token[]=s3cret',
    '/api/v1/monitors?password%00=s3cret',
    `/api/v1/monitors?${TOKEN}`,
    '/api/v1/monitors;token=s3cret',
  ]);
  assert.deepEqual(logged, [
    '/api/v1/monitors?token[]=[redacted]',
    '/api/v1/monitors?password%00=[redacted]',
    '/api/v1/monitors?[redacted]',
    '/api/v1/monitors;token=[redacted]',
  ]);
});
