import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type TestApp } from '../helpers/test-app.ts';
import type { FixtureServer } from '../helpers/fixture-server.ts';
import { useMonitoringWorld } from '../helpers/monitoring-world.ts';
import {
  createOwner,
  previewThroughForm,
  PRICE_SECOND_TARGET_FIELDS,
  signedIn,
  type DashboardClient,
} from '../helpers/dashboard-client.ts';

let t: TestApp, site: FixtureServer;
useMonitoringWorld({}, (w) => ({ t, site } = w));

const TARGETS = {
  t1_element: 'sel:#product-title',
  t1_label: 'Title',
  t1_kind: 'text',
  t1_rule: 'changed',
  ...PRICE_SECOND_TARGET_FIELDS,
  interval: '5',
  email: 'on',
};

const preview = (client: DashboardClient, path = '/shop/espresso.html') => previewThroughForm(client, t.clock, `${site.url}${path}`);

test("a preview lists the page's elements; evaluate shows the values; create makes the monitor once", async () => {
  const { email } = await createOwner(t.app);
  const client = await signedIn(t.app, email);
  const location = await preview(client);
  const page = await client.get(location);
  assert.equal(page.statusCode, 200);
  assert.match(page.body, /Espressomaschine Duo – Kaffeehaus/);
  assert.match(page.body, /<option value="sel:#product-title"[^>]*>/);

  const evaluated = await client.post(location, { ...TARGETS, action: 'evaluate' });
  assert.equal(evaluated.statusCode, 200);
  assert.match(evaluated.body, /Evaluated values/);
  assert.match(evaluated.body, /<span class="value">Espressomaschine Duo<\/span>/);
  assert.match(evaluated.body, /<span class="value">[^<]*1[.,]?299[.,]00[^<]*<\/span>/);
  assert.match(evaluated.body, /<option value="sel:#product-title"[^>]* selected>/, 'the form keeps what was chosen');

  const key = /name="idempotency_key" value="([^"]+)"/.exec(evaluated.body)![1]!;
  const created = await client.post(location, { ...TARGETS, action: 'create', idempotency_key: key });
  assert.equal(created.statusCode, 303, created.body.slice(0, 2000));
  const monitorUrl = (created.headers.location as string).split('?')[0];
  const again = await client.post(location, { ...TARGETS, action: 'create', idempotency_key: key });
  assert.equal((again.headers.location as string).split('?')[0], monitorUrl, 'a double submit replays the first creation');
  const rows = await t.db.query('SELECT id FROM monitors WHERE url = $1', [`${site.url}/shop/espresso.html`]);
  assert.equal(rows.length, 1);

  const monitor = await client.get(created.headers.location as string);
  assert.match(monitor.body, /The monitor is created/);
  assert.match(
    monitor.body,
    /<td class="target-name">Title<\/td><td data-label="Kind">text<\/td><td data-label="Selection"><code>#product-title<\/code><\/td><td data-label="Rule">changed<\/td>/,
  );
  assert.match(
    monitor.body,
    /<td class="target-name">Price<\/td><td data-label="Kind">price<\/td><td data-label="Selection">whole page<\/td><td data-label="Rule">dropped<\/td>/,
  );
  const list = await client.get('/');
  assert.match(list.body, new RegExp(`<a href="${monitorUrl}">`));
  assert.match(list.body, /state-active/);
});

test("configuration errors come from the API's validation and are shown per target", async () => {
  const { email } = await createOwner(t.app);
  const client = await signedIn(t.app, email);
  const location = await preview(client);
  await client.get(location);
  const noCurrency = await client.post(location, { ...TARGETS, t2_currency: '', action: 'evaluate' });
  assert.equal(noCurrency.statusCode, 422);
  assert.match(
    noCurrency.body,
    /Price currency: currency \(an ISO 4217 code\) is required for price targets/,
    'the target named by its label',
  );
  const tooOften = await client.post(location, { ...TARGETS, interval: '1', action: 'create', idempotency_key: 'dashboard-interval-test' });
  assert.equal(tooOften.statusCode, 422);
  assert.match(tooOften.body, /5/);
  const missing = await client.post(location, {
    ...TARGETS,
    t1_element: 'sel:#no-such-element',
    action: 'create',
    idempotency_key: 'dashboard-missing-test',
  });
  assert.equal(missing.statusCode, 422);
  assert.match(missing.body, /Title/, 'the target named by its label');
  const none = await client.post(location, { ...TARGETS, t1_element: '', t2_element: '', action: 'evaluate' });
  assert.equal(none.statusCode, 422);
  assert.match(none.body, /Choose at least one target/);
});

test("preview limits and the SSRF guard are the API's, shown on the form", async () => {
  const { email } = await createOwner(t.app);
  const client = await signedIn(t.app, email);
  await preview(client);
  const tooSoon = await client.post('/monitors/new', { url: `${site.url}/shop/espresso.html`, load_mode: 'html' });
  assert.equal(tooSoon.statusCode, 429);
  assert.match(tooSoon.body, /previews must be at least 35 seconds apart/);
  t.clock.advance(40_000);
  const metadata = await client.post('/monitors/new', { url: 'http://169.254.169.254/latest/meta-data/', load_mode: 'html' });
  assert.equal(metadata.statusCode, 422);
  assert.match(metadata.body, /url is not a public web address/);
  assert.match(metadata.body, /value="http:\/\/169\.254\.169\.254\/latest\/meta-data\/"/, 'the form keeps the address');
});

test("another account's preview, or an expired one, cannot be used", async () => {
  const owner = await createOwner(t.app);
  const stranger = await createOwner(t.app);
  const location = await preview(await signedIn(t.app, owner.email));
  const client = await signedIn(t.app, stranger.email);
  assert.equal((await client.get(location)).statusCode, 410);
  const ownerClient = await signedIn(t.app, owner.email);
  t.clock.advance(16 * 60_000);
  assert.equal((await ownerClient.get(location)).statusCode, 410);
});

test('pause and resume from the list and the monitor page', async () => {
  const { email } = await createOwner(t.app);
  const client = await signedIn(t.app, email);
  const location = await preview(client, '/shop/espresso.html');
  await client.get(location);
  const created = await client.post(location, { ...TARGETS, action: 'create', idempotency_key: 'dashboard-pause-test' });
  const id = /\/monitors\/([0-9a-f-]{36})/.exec(created.headers.location as string)![1];
  await client.get('/');
  const paused = await client.post(`/monitors/${id}/status`, { status: 'paused', back: '/' });
  assert.equal(paused.headers.location, '/?notice=monitor-paused');
  assert.match((await client.get('/')).body, /state-paused/);
  const resumed = await client.post(`/monitors/${id}/status`, { status: 'active', back: `/monitors/${id}` });
  assert.equal(resumed.headers.location, `/monitors/${id}?notice=monitor-resumed`);
  assert.match((await client.get(`/monitors/${id}`)).body, /state-active/);
  const stranger = await signedIn(t.app, (await createOwner(t.app)).email);
  await stranger.get('/');
  assert.equal((await stranger.post(`/monitors/${id}/status`, { status: 'paused' })).statusCode, 404);
  assert.equal((await stranger.get(`/monitors/${id}`)).statusCode, 404);
});

test('a page address the SSRF guard refuses is explained once, with no credit spent', async () => {
  const { email } = await createOwner(t.app);
  const client = await signedIn(t.app, email);
  t.clock.advance(40_000);
  await client.get('/monitors/new');
  const res = await client.post('/monitors/new', { url: 'http://10.0.0.1/internal', load_mode: 'html' });
  assert.equal(res.statusCode, 422);
  const error = /<p class="error" role="alert">([^<]*)<\/p>/.exec(res.body)![1]!;
  assert.match(error, /^url is not a public web address: /);
  const reason = error.slice('url is not a public web address: '.length);
  assert.equal(error.split(reason).length - 1, 1, `the reason appears once: ${error}`);
});

test('the decimal choice of a price target starts as automatic, which sends no decimal', async () => {
  const { email } = await createOwner(t.app);
  const client = await signedIn(t.app, email);
  const location = await preview(client);
  const page = await client.get(location);
  assert.match(page.body, /<select id="t1_decimal" name="t1_decimal">\s*<option value="" selected>automatic<\/option>/);
  const evaluated = await client.post(location, { ...TARGETS, t2_decimal: '', action: 'evaluate' });
  assert.equal(evaluated.statusCode, 200);
  assert.match(evaluated.body, /<span class="value">[^<]*1[.,]?299[.,]00[^<]*<\/span>/);
  assert.match(evaluated.body, /<select id="t2_decimal" name="t2_decimal">\s*<option value="" selected>automatic<\/option>/);
});
