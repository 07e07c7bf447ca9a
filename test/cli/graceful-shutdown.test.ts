import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { loadConfig } from '../../src/config.ts';
import { startServer } from '../../src/server.ts';
import { startFixtureServer } from '../helpers/fixture-server.ts';
import { ADMIN_TOKEN } from '../helpers/test-credentials.ts';
import { useMigratedDataDirs } from '../helpers/migrated-snapshot.ts';
import { signal } from '../helpers/signal.ts';

const drainDir = useMigratedDataDirs('pw-drain-');

test('stopping the server lets in-flight requests finish, then closes the store', async () => {
  const reached = signal();
  const release = signal();
  const site = await startFixtureServer({
    '/slow': async (_req, res) => {
      reached.resolve();
      await release.promise;
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html><body><h1>slow</h1></body></html>');
    },
  });
  const dataDir = drainDir();
  const config = loadConfig({
    PORT: '0',
    PAGEWATCH_DATA_DIR: dataDir,
    PAGEWATCH_ADMIN_TOKEN: ADMIN_TOKEN,
    LOG_LEVEL: 'silent',
    PAGEWATCH_ALLOW_PRIVATE_NETWORKS: '127.0.0.0/8',
  });
  const server = await startServer(config);
  try {
    const base = `http://127.0.0.1:${(server.app.server.address() as { port: number }).port}`;
    const adminHeaders = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };
    const account = await (
      await fetch(`${base}/admin/v1/accounts`, {
        method: 'POST',
        headers: adminHeaders,
        body: JSON.stringify({ email: 'drain@example.com', plan: 'pro' }),
      })
    ).json();
    const token = await (
      await fetch(`${base}/admin/v1/accounts/${account.data.id}/tokens`, {
        method: 'POST',
        headers: adminHeaders,
        body: JSON.stringify({ name: 'drain', scopes: ['monitors:write'], expires_in_days: 1 }),
      })
    ).json();
    const inFlight = fetch(`${base}/api/v1/previews`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token.data.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: `${site.url}/slow`, load_mode: 'html' }),
    });
    await reached.promise;
    const stopped = server.stop();
    release.resolve();
    const response = await inFlight;
    assert.equal(response.status, 201);
    await stopped;
    assert.ok(!existsSync(`${dataDir}.lock`), 'the store was closed and its lock released');
    await assert.rejects(fetch(`${base}/api/v1/openapi.json`), 'no longer accepting connections');
  } finally {
    await server.stop();
    await site.close();
  }
});
