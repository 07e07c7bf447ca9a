import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import type { FixtureServer } from '../helpers/fixture-server.ts';
import { useMonitoringWorld } from '../helpers/monitoring-world.ts';
import { insertMonitorRow } from '../helpers/monitor-rows.ts';
import { createOwner, previewThroughForm, signedIn, TITLE_FIELDS, type DashboardClient } from '../helpers/dashboard-client.ts';

// The dashboard's monitor forms carry the monitor's outbound proxy (issue #41,
// DESIGN §5 Outbound proxies): a select of the operator's proxies, shown only
// when the account's plan may use them; refusals in the API's words.

// The names are what the forms offer; no load goes through them here (test/api/monitor-proxies.test.ts does that).
const PROXIES = { PAGEWATCH_PROXIES: 'corp=http://127.0.0.1:9,socks=socks5://127.0.0.1:9', PAGEWATCH_PRIVATE_PROXIES: 'corp,socks' };

let t: TestApp, site: FixtureServer;
useMonitoringWorld({ env: PROXIES }, (w) => ({ t, site } = w));

let n = 0;

async function previewForm(client: DashboardClient, app = t): Promise<string> {
  const location = await previewThroughForm(client, app.clock, `${site.url}/shop/espresso.html?proxy-form=${++n}`);
  await client.get(location);
  return location;
}

const selectedProxy = (body: string) => /<select id="proxy" name="proxy"[^>]*>([\s\S]*?)<\/select>/.exec(body)?.[1];
const proxyOptions = (body: string) => [...(selectedProxy(body) ?? '').matchAll(/<option value="([^"]*)"/g)].map((m) => m[1]);
const chosenOption = (body: string) => /<option value="([^"]*)" selected>/.exec(selectedProxy(body) ?? '')?.[1];

async function proxyOf(monitorId: string): Promise<{ proxy: string | null; config_version: number }> {
  const [row] = await t.db.query<{ proxy: string | null; config_version: number }>(
    'SELECT proxy, config_version FROM monitors WHERE id = $1',
    [monitorId],
  );
  return row!;
}

async function ownerWithMonitor(plan: 'pro' | 'free', proxy: string | null) {
  const owner = await createOwner(t.app, plan);
  const monitorId = await insertMonitorRow(t.db, {
    accountId: owner.accountId,
    url: `${site.url}/shop/espresso.html?owner=${owner.accountId}`,
    targets: [{ id: 'title', kind: 'text', selection: { scope: 'selector', selector: '#product-title' }, rule: 'changed' }],
    nextCheckAt: t.clock.now(),
    intervalMinutes: 60,
  });
  if (proxy !== null) await t.db.query('UPDATE monitors SET proxy = $2 WHERE id = $1', [monitorId, proxy]);
  return { client: await signedIn(t.app, owner.email), monitorId };
}

test("the new monitor form offers directly or each of the operator's proxies, and the monitor loads through the one chosen", async () => {
  const { email } = await createOwner(t.app);
  const client = await signedIn(t.app, email);
  const location = await previewForm(client);
  const form = await client.get(location);
  assert.deepEqual(proxyOptions(form.body), ['', 'corp', 'socks']);
  assert.equal(chosenOption(form.body), '', 'directly unless chosen');
  const created = await client.post(location, { ...TITLE_FIELDS, proxy: 'socks', action: 'create', idempotency_key: `proxy-form-${n}` });
  assert.equal(created.statusCode, 303, created.body.slice(0, 2000));
  const id = (created.headers.location as string).split('?')[0]!.split('/').pop()!;
  assert.equal((await proxyOf(id)).proxy, 'socks');
  const page = await client.get(`/monitors/${id}`);
  assert.match(page.body, /<dt>Proxy<\/dt><dd>through the operator's proxy socks<\/dd>/);
});

test('a monitor created with directly chosen has no proxy, and its page names none', async () => {
  const { email } = await createOwner(t.app);
  const client = await signedIn(t.app, email);
  const location = await previewForm(client);
  const created = await client.post(location, { ...TITLE_FIELDS, proxy: '', action: 'create', idempotency_key: `proxy-form-${n}` });
  assert.equal(created.statusCode, 303, created.body.slice(0, 2000));
  const id = (created.headers.location as string).split('?')[0]!.split('/').pop()!;
  assert.equal((await proxyOf(id)).proxy, null);
  assert.doesNotMatch((await client.get(`/monitors/${id}`)).body, /<dt>Proxy<\/dt>/);
});

test('a proxy the operator does not have is refused on the form in the API words, with what was typed kept', async () => {
  const { email } = await createOwner(t.app);
  const client = await signedIn(t.app, email);
  const location = await previewForm(client);
  const refused = await client.post(location, {
    ...TITLE_FIELDS,
    name: 'Espresso <machine>',
    proxy: 'gone',
    action: 'create',
    idempotency_key: `proxy-form-${n}`,
  });
  assert.equal(refused.statusCode, 422);
  assert.match(refused.body, /<p class="error" role="alert">no proxy named gone; known: corp, socks<\/p>/);
  assert.match(refused.body, /<input id="name" name="name" maxlength="200" value="Espresso &lt;machine&gt;">/);
  assert.deepEqual(proxyOptions(refused.body), ['', 'corp', 'socks', 'gone']);
  assert.equal(chosenOption(refused.body), 'gone');
  const [count] = await t.db.query<{ n: number }>("SELECT count(*)::int AS n FROM monitors WHERE name = 'Espresso <machine>'");
  assert.equal(count!.n, 0);
});

test('a plan without proxies sees no proxy field on the new monitor and edit forms', async () => {
  const { email } = await createOwner(t.app, 'free');
  const client = await signedIn(t.app, email);
  const form = await client.get(await previewForm(client));
  assert.equal(selectedProxy(form.body), undefined);
  const { client: owner, monitorId } = await ownerWithMonitor('free', null);
  assert.equal(selectedProxy((await owner.get(`/monitors/${monitorId}/edit`)).body), undefined);
});

test('a server without proxies shows no proxy field to a plan that may use them', async () => {
  const bare = await startTestApp();
  try {
    const { email } = await createOwner(bare.app);
    const client = await signedIn(bare.app, email);
    const form = await client.get(await previewForm(client, bare));
    assert.match(form.body, /<h1>Choose what to watch<\/h1>/);
    assert.equal(selectedProxy(form.body), undefined);
  } finally {
    await bare.close();
  }
});

test("the edit page shows the monitor's proxy and switches it without a new configuration version", async () => {
  const { client, monitorId } = await ownerWithMonitor('pro', 'corp');
  const page = await client.get(`/monitors/${monitorId}/edit`);
  assert.equal(chosenOption(page.body), 'corp');
  const switched = await client.post(`/monitors/${monitorId}/edit`, { email: 'on', proxy: 'socks' });
  assert.equal(switched.statusCode, 303, switched.body.slice(0, 2000));
  assert.deepEqual(await proxyOf(monitorId), { proxy: 'socks', config_version: 1 });
  assert.equal(chosenOption((await client.get(`/monitors/${monitorId}/edit`)).body), 'socks');
  await client.post(`/monitors/${monitorId}/edit`, { email: 'on', proxy: '' });
  assert.deepEqual(await proxyOf(monitorId), { proxy: null, config_version: 1 });
});

test('an unknown proxy on the edit page is refused once in the API words, and nothing is saved', async () => {
  const { client, monitorId } = await ownerWithMonitor('pro', 'corp');
  await client.get(`/monitors/${monitorId}/edit`);
  const refused = await client.post(`/monitors/${monitorId}/edit`, { name: 'Kept', proxy: 'gone' });
  assert.equal(refused.statusCode, 422);
  assert.match(refused.body, /<p class="error" role="alert">no proxy named gone; known: corp, socks<\/p>/);
  assert.match(refused.body, /<input id="name" name="name" maxlength="200" value="Kept"/);
  assert.equal(chosenOption(refused.body), 'gone');
  assert.equal((await proxyOf(monitorId)).proxy, 'corp');
});

test("saving the settings of a plan without proxies leaves a monitor's stored proxy as it is", async () => {
  const { client, monitorId } = await ownerWithMonitor('free', 'corp');
  await client.get(`/monitors/${monitorId}/edit`);
  const saved = await client.post(`/monitors/${monitorId}/edit`, { name: 'Renamed', email: 'on' });
  assert.equal(saved.statusCode, 303, saved.body.slice(0, 2000));
  assert.equal((await proxyOf(monitorId)).proxy, 'corp');
  assert.match((await client.get(`/monitors/${monitorId}`)).body, /<dt>Proxy<\/dt><dd>through the operator's proxy corp<\/dd>/);
});

test('parallel edits of one monitor switching its proxy all succeed and leave one of the names', async () => {
  const { client, monitorId } = await ownerWithMonitor('pro', null);
  await client.get(`/monitors/${monitorId}/edit`);
  const names = Array.from({ length: 12 }, (_, i) => ['', 'corp', 'socks'][i % 3]!);
  const answers = await Promise.all(names.map((proxy) => client.post(`/monitors/${monitorId}/edit`, { email: 'on', proxy })));
  assert.deepEqual(
    answers.map((a) => a.statusCode),
    names.map(() => 303),
  );
  const { proxy, config_version } = await proxyOf(monitorId);
  assert.ok([null, 'corp', 'socks'].includes(proxy), String(proxy));
  assert.equal(config_version, 1);
});
