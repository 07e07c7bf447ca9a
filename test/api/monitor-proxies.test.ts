import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { bearer, createAccountWithToken, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.ts';
import { startHttpConnectProxy, startSocks5Proxy, type RecordingProxy } from '../helpers/recording-proxies.ts';
import { createMonitorFor, loadPreview, patchMonitor, postMonitor, TITLE_TARGET } from '../helpers/monitor-api.ts';
import { checkDueMonitor, startTestEngine } from '../helpers/test-engine.ts';
import type { SteppedEngine } from '../../src/engine/scheduler.ts';

// The monitor and preview field `proxy` (DESIGN §5 Outbound proxies): a
// stored monitor's checks go through the operator's proxy it names; unknown
// names and plans without proxies are refused with their own codes.

const CREDENTIALS = { user: 'watcher', password: 'pw-1' };
let t: TestApp;
let engine: SteppedEngine;
let site: FixtureServer;
let httpProxy: RecordingProxy;
let socksProxy: RecordingProxy;
before(async () => {
  site = await startFixtureServer();
  httpProxy = await startHttpConnectProxy(CREDENTIALS);
  socksProxy = await startSocks5Proxy(CREDENTIALS);
  t = await startTestApp({
    env: { PAGEWATCH_PROXIES: `corp=${httpProxy.url},socks=${socksProxy.url}`, PAGEWATCH_PRIVATE_PROXIES: 'corp,socks' },
  });
  engine = startTestEngine(t);
});
after(async () => {
  await engine.stop();
  await t.close();
  await site.close();
  await httpProxy.close();
  await socksProxy.close();
});

const PAGE = () => `${site.url}/shop/espresso.html`;
const carriedTo = (proxy: RecordingProxy, from: number) => proxy.carried.slice(from).filter((c) => c.target === `127.0.0.1:${site.port}`);

function postPreview(token: string, body: Record<string, unknown>) {
  return t.app.inject({
    method: 'POST',
    url: '/api/v1/previews',
    headers: { ...bearer(token), 'content-type': 'application/json' },
    payload: { url: PAGE(), load_mode: 'html', ...body },
  });
}

async function checkNow(monitorId: string): Promise<{ code: string }[]> {
  await checkDueMonitor(t, engine, monitorId);
  const [row] = await t.db.query<{ last_issues: { code: string }[] }>('SELECT last_issues FROM check_state WHERE monitor_id = $1', [
    monitorId,
  ]);
  return row!.last_issues;
}

test('a preview with proxy loads the page through that proxy', async () => {
  const { token } = await createAccountWithToken(t.app);
  const before = httpProxy.carried.length;
  const res = await postPreview(token, { proxy: 'corp' });
  assert.equal(res.statusCode, 201, res.body);
  assert.equal(res.json().data.title, 'Espressomaschine Duo – Kaffeehaus');
  assert.deepEqual(
    carriedTo(httpProxy, before).map((c) => [c.user, c.opened]),
    [[CREDENTIALS.user, true]],
  );
});

test("a stored monitor's checks go through its proxy; PATCH switches it, and null checks directly again", async () => {
  const { token } = await createAccountWithToken(t.app);
  const id = await createMonitorFor(t.app, token, PAGE(), { proxy: 'socks' });
  const read = async () => (await t.app.inject({ method: 'GET', url: `/api/v1/monitors/${id}`, headers: bearer(token) })).json().data;
  assert.equal((await read()).proxy, 'socks');

  let socksBefore = socksProxy.carried.length;
  assert.deepEqual(await checkNow(id), []);
  assert.equal(carriedTo(socksProxy, socksBefore).length, 1, 'the check went through the SOCKS5 proxy');

  const version = (await read()).config_version;
  const switched = await patchMonitor(t.app, token, id, { proxy: 'corp' });
  assert.equal(switched.statusCode, 200, switched.body);
  assert.deepEqual(
    [switched.json().data.proxy, switched.json().data.config_version],
    ['corp', version],
    'no fresh preview, no new version',
  );
  const httpBefore = httpProxy.carried.length;
  socksBefore = socksProxy.carried.length;
  assert.deepEqual(await checkNow(id), []);
  assert.equal(carriedTo(httpProxy, httpBefore).length, 1, 'now through the HTTP proxy');
  assert.equal(socksProxy.carried.length, socksBefore);

  assert.equal((await patchMonitor(t.app, token, id, { proxy: null })).json().data.proxy, null);
  const both = [httpProxy.carried.length, socksProxy.carried.length];
  assert.deepEqual(await checkNow(id), []);
  assert.deepEqual([httpProxy.carried.length, socksProxy.carried.length], both, 'directly: no proxy carried it');
});

test("a stored browser-mode monitor's checks go through its proxy too: Chromium's connections are carried by it", async () => {
  const { token } = await createAccountWithToken(t.app);
  const previewId = await loadPreview(t.app, token, PAGE(), 'browser');
  const created = await postMonitor(t.app, token, { preview_id: previewId, targets: [TITLE_TARGET], interval_minutes: 15, proxy: 'socks' });
  assert.equal(created.statusCode, 201, created.body);
  const id = created.json().data.id as string;
  const shown = (await t.app.inject({ method: 'GET', url: `/api/v1/monitors/${id}`, headers: bearer(token) })).json().data;
  assert.deepEqual([shown.load_mode, shown.proxy], ['browser', 'socks']);
  const before = socksProxy.carried.length;
  assert.deepEqual(await checkNow(id), []);
  const carried = socksProxy.carried.slice(before);
  assert.ok(carried.length >= 1, 'the check went through the SOCKS5 proxy');
  assert.ok(
    carried.every((c) => c.target === `127.0.0.1:${site.port}` && c.user === CREDENTIALS.user && c.opened),
    JSON.stringify(carried),
  );
});

test('a proxy the operator did not configure is 422 proxy_unknown on preview, create and update, naming the field', async () => {
  const { token } = await createAccountWithToken(t.app);
  const preview = await postPreview(token, { proxy: 'elsewhere' });
  const id = await createMonitorFor(t.app, token, PAGE());
  t.clock.advance(35_000);
  const previewId = await loadPreview(t.app, token, `${site.url}/shop/rendered-price.html`);
  const created = await postMonitor(t.app, token, {
    preview_id: previewId,
    targets: [TITLE_TARGET],
    interval_minutes: 5,
    proxy: 'elsewhere',
  });
  const patched = await patchMonitor(t.app, token, id, { proxy: 'elsewhere' });
  for (const res of [preview, created, patched]) {
    assert.equal(res.statusCode, 422, res.body);
    assert.equal(res.json().error.code, 'proxy_unknown');
    assert.match(res.json().error.message, /no proxy named elsewhere; known: corp, socks/);
    assert.deepEqual(res.json().error.details, [{ field: 'proxy', message: 'no proxy named elsewhere' }]);
  }
});

test('parallel PATCHes of one account switching proxies all succeed and leave one of the names', async () => {
  const { token } = await createAccountWithToken(t.app);
  const id = await createMonitorFor(t.app, token, PAGE());
  const names = Array.from({ length: 24 }, (_, i) => [null, 'corp', 'socks'][i % 3]);
  const answers = await Promise.all(names.map((proxy) => patchMonitor(t.app, token, id, { proxy })));
  assert.deepEqual(
    answers.map((a) => a.statusCode),
    names.map(() => 200),
  );
  const final = (await t.app.inject({ method: 'GET', url: `/api/v1/monitors/${id}`, headers: bearer(token) })).json().data;
  assert.ok(names.includes(final.proxy), final.proxy);
  assert.equal(final.config_version, 1);
});

test('a plan without proxies is 422 proxy_not_allowed, and its previews cost no credit', async () => {
  const noProxies = await startTestApp({
    env: { PAGEWATCH_PROXIES: `corp=${httpProxy.url}`, PAGEWATCH_PRIVATE_PROXIES: 'corp' },
    plans: { pro: { proxies: false } },
  });
  try {
    const { token } = await createAccountWithToken(noProxies.app);
    const before = httpProxy.carried.length;
    const res = await noProxies.app.inject({
      method: 'POST',
      url: '/api/v1/previews',
      headers: { ...bearer(token), 'content-type': 'application/json' },
      payload: { url: PAGE(), load_mode: 'html', proxy: 'corp' },
    });
    assert.equal(res.statusCode, 422);
    assert.equal(res.json().error.code, 'proxy_not_allowed');
    assert.equal(httpProxy.carried.length, before);
    const usage = (await noProxies.app.inject({ method: 'GET', url: '/api/v1/usage', headers: bearer(token) })).json().data;
    assert.equal(usage.previews.day.used, 0);
    const id = await createMonitorFor(noProxies.app, token, PAGE());
    const patched = await patchMonitor(noProxies.app, token, id, { proxy: 'corp' });
    assert.equal(patched.json().error.code, 'proxy_not_allowed');
  } finally {
    await noProxies.close();
  }
});
