import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { buildApp } from '../../src/http/app.ts';
import { Cursors } from '../../src/http/cursor.ts';
import { bearer, createAccountWithToken, type TestApp } from '../helpers/test-app.ts';
import type { FixtureServer } from '../helpers/fixture-server.ts';
import { useMonitoringWorld } from '../helpers/monitoring-world.ts';
import { createMonitorFor } from '../helpers/monitor-api.ts';

// Cursors are sealed with an HMAC keyed by a secret kept in the store: only
// this installation can make one that opens, and every node of it can.

let t: TestApp, site: FixtureServer;
useMonitoringWorld({ plans: { pro: { preview_spacing_seconds: 0 } } }, (w) => ({ t, site } = w));

async function twoMonitors(): Promise<{ token: string; cursor: string }> {
  const { token } = await createAccountWithToken(t.app);
  for (let i = 0; i < 2; i++) await createMonitorFor(t.app, token, `${site.url}/shop/espresso.html?c=${token.slice(-6)}${i}`);
  const first = await t.app.inject({ method: 'GET', url: '/api/v1/monitors?limit=1', headers: bearer(token) });
  return { token, cursor: first.json().meta.next_cursor as string };
}

const list = (app: TestApp['app'], token: string, cursor: string) =>
  app.inject({ method: 'GET', url: `/api/v1/monitors?limit=1&cursor=${encodeURIComponent(cursor)}`, headers: bearer(token) });

test('a cursor forged by recomputing an unkeyed checksum is 400 malformed_cursor', async () => {
  const { token, cursor } = await twoMonitors();
  const body = Buffer.from(cursor.split('.')[0]!, 'base64url').toString('utf8');
  const moved = body.replace(/"s":"\d+"/, '"s":"9223372036854775807"');
  const forged = `${Buffer.from(moved).toString('base64url')}.${createHash('sha256').update(moved).digest('base64url').slice(0, 16)}`;
  const res = await list(t.app, token, forged);
  assert.equal(res.statusCode, 400);
  assert.equal(res.json().error.code, 'malformed_cursor');
});

test('a cursor sealed with another key does not open; every app on the same store opens this one', async () => {
  const { token, cursor } = await twoMonitors();
  const body = Buffer.from(cursor.split('.')[0]!, 'base64url').toString('utf8');
  const parsed = JSON.parse(body) as { p: Record<string, string> };
  const foreign = new Cursors(Buffer.alloc(32, 7)).encode(parsed.p, { status: null, label: null, failing: null });
  assert.equal((await list(t.app, token, foreign)).statusCode, 400);

  const second = await buildApp({ config: t.config, db: t.db, clock: t.clock, loaders: t.loaders, metrics: t.metrics });
  try {
    const res = await list(second, token, cursor);
    assert.equal(res.statusCode, 200, res.body);
  } finally {
    await second.close();
  }
});
