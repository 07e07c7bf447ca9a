import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { bearer, createAccountWithToken, startTestApp, type TestApp } from '../../helpers/test-app.ts';
import { startFixtureServer, type FixtureServer } from '../../helpers/fixture-server.ts';
import { insertMonitorRow, updateMonitorRow } from '../../helpers/monitor-rows.ts';
import { INITIAL_SHOP, shopHtml } from '../../helpers/shop-page.ts';
import { startTestEngine } from '../../helpers/test-engine.ts';
import { TITLE } from '../../helpers/watched-page.ts';

let t: TestApp;
let site: FixtureServer;
before(async () => {
  t = await startTestApp({ loaders: { maxBrowserPages: 1, browserChecksWaiting: 0 } });
  site = await startFixtureServer({
    '/page.html': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(shopHtml(INITIAL_SHOP));
    },
  });
});
after(async () => {
  await t.close();
  await site.close();
});

async function requestCheck(token: string, monitorId: string) {
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/v1/monitors/${monitorId}/checks`,
    headers: { ...bearer(token), 'content-type': 'application/json', 'idempotency-key': `key-${Math.random().toString(36).slice(2)}` },
    payload: '{}',
  });
  assert.equal(res.statusCode, 202, res.body);
  return res.json().data.check_id as string;
}

async function receiptStatus(token: string, checkId: string): Promise<string> {
  return (await t.app.inject({ method: 'GET', url: `/api/v1/checks/${checkId}`, headers: bearer(token) })).json().data.status;
}

test('a renderer without room, nor room to wait, defers the check: its allowance goes back and a later cycle runs it', async () => {
  const { accountId, token } = await createAccountWithToken(t.app);
  await t.db.query("UPDATE monitors SET status = 'paused'");
  const monitorId = await insertMonitorRow(t.db, {
    accountId,
    url: `${site.url}/page.html`,
    loadMode: 'browser',
    intervalMinutes: 60,
    targets: [TITLE],
    nextCheckAt: new Date(t.clock.now().getTime() + 86_400_000),
  });
  const checkId = await requestCheck(token, monitorId);

  // Another browser load holds the only page until the site answers it.
  // Boxed, so TypeScript does not narrow it to null across the callback.
  const held: { release: (() => void) | null } = { release: null };
  site.route('/slow.html', (_req, res: ServerResponse) => {
    held.release = () => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<p>slow</p>');
    };
  });
  const busy = t.loaders.byMode.browser.load({ url: `${site.url}/slow.html`, mode: 'browser' });
  while (held.release === null) await new Promise((resolve) => setTimeout(resolve, 20));

  const engine = startTestEngine(t);
  try {
    const deferred = await engine.runCycle();
    assert.deepEqual(deferred.outcomes, [{ outcome: 'deferred' }]);
    assert.equal(await receiptStatus(token, checkId), 'running', 'running includes waiting for the renderer');
    const usage = async () =>
      (await t.app.inject({ method: 'GET', url: '/api/v1/usage', headers: bearer(token) })).json().data.checks.browser.used;
    assert.equal(await usage(), 0, 'the deferral refunded the reservation');

    held.release();
    await busy;
    const retried = await engine.runCycle();
    assert.equal(retried.claimed[0]!.attempt, 2);
    assert.equal(await receiptStatus(token, checkId), 'succeeded');
    assert.equal(await usage(), 1);
  } finally {
    await engine.stop();
  }
});

test('a check whose monitor is reconfigured while it runs is discarded and its manual check fails', async () => {
  const { accountId, token } = await createAccountWithToken(t.app);
  await t.db.query("UPDATE monitors SET status = 'paused'");
  const monitorId = await insertMonitorRow(t.db, {
    accountId,
    url: `${site.url}/page.html?m`,
    targets: [TITLE],
    nextCheckAt: new Date(t.clock.now().getTime() + 86_400_000),
  });
  const checkId = await requestCheck(token, monitorId);
  const engine = startTestEngine(t);
  try {
    const [item] = await engine.claim();
    assert.ok(item);
    await updateMonitorRow(t.db, monitorId, { targets: [{ ...TITLE, selection: { scope: 'selector', selector: '#note' } }] });
    assert.deepEqual(await engine.run(item), { outcome: 'monitor_changed' });
    assert.equal(await receiptStatus(token, checkId), 'failed');
    assert.equal(
      (await t.db.query('SELECT 1 FROM baselines WHERE monitor_id = $1', [monitorId])).length,
      0,
      'nothing of the old configuration was recorded',
    );
  } finally {
    await engine.stop();
  }
});
