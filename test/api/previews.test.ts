import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { bearer, createAccountWithToken, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.ts';

let t: TestApp;
let site: FixtureServer;
before(async () => {
  t = await startTestApp();
  site = await startFixtureServer({
    '/gone': (_req, res) => {
      res.writeHead(404, { 'content-type': 'text/html' });
      res.end('<html><body>gone</body></html>');
    },
  });
});
after(async () => {
  await t.close();
  await site.close();
});

const SPACING_MS = 35_000;

async function preview(token: string, url: string, loadMode = 'html', extraHeaders: Record<string, string> = {}) {
  return t.app.inject({
    method: 'POST',
    url: '/api/v1/previews',
    headers: { ...bearer(token), 'content-type': 'application/json', ...extraHeaders },
    payload: { url, load_mode: loadMode },
  });
}

async function evaluate(token: string, previewId: string, targets: unknown[]) {
  return t.app.inject({
    method: 'POST',
    url: `/api/v1/previews/${previewId}/evaluate`,
    headers: { ...bearer(token), 'content-type': 'application/json' },
    payload: { targets },
  });
}

async function previewsUsedToday(token: string): Promise<number> {
  const res = await t.app.inject({ method: 'GET', url: '/api/v1/usage', headers: bearer(token) });
  return res.json().data.previews.day.used;
}

test('a preview returns 201 with the page title, final URL and an element list, never HTML', async () => {
  const { token } = await createAccountWithToken(t.app);
  const res = await preview(token, `${site.url}/shop/espresso.html`);
  assert.equal(res.statusCode, 201, res.body);
  const data = res.json().data;
  assert.match(data.id, /^[0-9a-f-]{36}$/);
  assert.equal(data.title, 'Espressomaschine Duo – Kaffeehaus');
  assert.equal(data.final_url, `${site.url}/shop/espresso.html`);
  assert.equal(data.load_mode, 'html');
  assert.equal(Date.parse(data.expires_at) - Date.parse(data.created_at), 15 * 60_000);
  assert.ok(data.elements.length > 0 && data.elements.length <= 200);
  assert.ok(data.elements.some((e: { selector: string }) => e.selector === '#product-title'));
  assert.ok(!res.body.includes('<html') && !res.body.includes('<script'));
  assert.equal(res.headers['set-cookie'], undefined);
});

test('evaluating a preview extracts each target without loading the page or spending a credit', async () => {
  const { token } = await createAccountWithToken(t.app);
  const created = await preview(token, `${site.url}/shop/espresso.html`);
  const hitsBefore = site.hits.get('/shop/espresso.html');
  const res = await evaluate(token, created.json().data.id, [
    { id: 'price', label: 'Price', kind: 'price', selection: { scope: 'page' }, currency: 'EUR', rule: 'below', threshold: '1000.00' },
    { id: 'title', label: 'Title', kind: 'text', selection: { scope: 'selector', selector: '#product-title' }, rule: 'changed' },
    { id: 'stock', label: 'Stock', kind: 'availability', selection: { scope: 'page' }, rule: 'available' },
  ]);
  assert.equal(res.statusCode, 200, res.body);
  const [price, title, stock] = res.json().data.targets;
  assert.deepEqual([price.target_id, price.ok, price.value], ['price', true, 129900]);
  assert.deepEqual([title.ok, title.value], [true, 'Espressomaschine Duo']);
  assert.deepEqual([stock.ok, stock.value], [true, 'in_stock']);
  assert.equal(site.hits.get('/shop/espresso.html'), hitsBefore);
  assert.equal(await previewsUsedToday(token), 1);
});

test('a selector matching nothing or several elements is an issue, never a guess', async () => {
  const { token } = await createAccountWithToken(t.app);
  const created = await preview(token, `${site.url}/shop/espresso.html`);
  const res = await evaluate(token, created.json().data.id, [
    { id: 'missing', kind: 'text', selection: { scope: 'selector', selector: '#nope' } },
    { id: 'many', kind: 'text', selection: { scope: 'selector', selector: '.variant' } },
  ]);
  const [missing, many] = res.json().data.targets;
  assert.deepEqual([missing.ok, missing.value, missing.issues[0].code], [false, null, 'selector_missing']);
  assert.deepEqual([many.ok, many.value, many.issues[0].code], [false, null, 'selector_ambiguous']);
});

test('links targets return at most 10 absolute links filtered by match', async () => {
  const { token } = await createAccountWithToken(t.app);
  const created = await preview(token, `${site.url}/shop/espresso.html`);
  const res = await evaluate(token, created.json().data.id, [
    { id: 'acc', kind: 'links', selection: { scope: 'selector', selector: '#accessories' }, rule: 'new_links', match: '/shop/' },
  ]);
  const [links] = res.json().data.targets;
  assert.deepEqual(links.links, [`${site.url}/shop/milk-jug.html`, `${site.url}/shop/tamper.html`]);
});

test('a misconfigured target is 422 target_invalid naming the field', async () => {
  const { token } = await createAccountWithToken(t.app);
  const created = await preview(token, `${site.url}/shop/espresso.html`);
  const res = await evaluate(token, created.json().data.id, [{ id: 'p', kind: 'price', selection: { scope: 'page' }, rule: 'below' }]);
  assert.equal(res.statusCode, 422);
  assert.equal(res.json().error.code, 'target_invalid');
  assert.deepEqual(
    res.json().error.details,
    [
      { field: 'targets[0].currency', message: 'currency (an ISO 4217 code) is required for price targets' },
      { field: 'targets[0].threshold', message: 'threshold is required for the below rule' },
    ],
    'each problem once',
  );
});

test('an appears target without a phrase is reported once', async () => {
  const { token } = await createAccountWithToken(t.app);
  const created = await preview(token, `${site.url}/shop/espresso.html`);
  const res = await evaluate(token, created.json().data.id, [{ id: 't', kind: 'text', selection: { scope: 'page' }, rule: 'appears' }]);
  assert.deepEqual(res.json().error.details, [{ field: 'targets[0].phrase', message: 'phrase is required for the appears rule' }]);
});

test('an unknown target field is 400 unknown_field', async () => {
  const { token } = await createAccountWithToken(t.app);
  const created = await preview(token, `${site.url}/shop/espresso.html`);
  const res = await evaluate(token, created.json().data.id, [{ id: 'p', kind: 'text', selection: { scope: 'page' }, colour: 'red' }]);
  assert.equal(res.statusCode, 400);
  assert.equal(res.json().error.code, 'unknown_field');
  assert.match(res.json().error.message, /targets\[0\]\.colour/);
});

test("another account's preview is 404 to evaluate", async () => {
  const owner = await createAccountWithToken(t.app);
  const stranger = await createAccountWithToken(t.app);
  const created = await preview(owner.token, `${site.url}/shop/espresso.html`);
  const res = await evaluate(stranger.token, created.json().data.id, [{ id: 'a', kind: 'text', selection: { scope: 'page' } }]);
  assert.equal(res.statusCode, 404);
});

test('a preview expires after 15 minutes', async () => {
  const { token } = await createAccountWithToken(t.app);
  const created = await preview(token, `${site.url}/shop/espresso.html`);
  t.clock.advance(15 * 60_000);
  const res = await evaluate(token, created.json().data.id, [{ id: 'a', kind: 'text', selection: { scope: 'page' } }]);
  assert.equal(res.statusCode, 404);
});

test('only the three most recent previews of an account are kept', async () => {
  const { token } = await createAccountWithToken(t.app);
  const ids: string[] = [];
  for (let i = 0; i < 4; i++) {
    const res = await preview(token, `${site.url}/shop/espresso.html`);
    assert.equal(res.statusCode, 201);
    ids.push(res.json().data.id);
    t.clock.advance(SPACING_MS);
  }
  const target = [{ id: 'a', kind: 'text', selection: { scope: 'page' } }];
  assert.equal((await evaluate(token, ids[0]!, target)).statusCode, 404);
  for (const id of ids.slice(1)) assert.equal((await evaluate(token, id, target)).statusCode, 200);
  const rows = await t.db.query('SELECT id FROM previews WHERE id = $1', [ids[0]]);
  assert.equal(rows.length, 0, 'the discarded capture is deleted');
});

test('previews closer than 35 seconds apart are 429 preview_limited with Retry-After', async () => {
  const { token } = await createAccountWithToken(t.app);
  assert.equal((await preview(token, `${site.url}/shop/espresso.html`)).statusCode, 201);
  t.clock.advance(10_000);
  const res = await preview(token, `${site.url}/shop/espresso.html`);
  assert.equal(res.statusCode, 429);
  assert.equal(res.json().error.code, 'preview_limited');
  assert.equal(res.headers['retry-after'], '25');
  t.clock.advance(25_000);
  assert.equal((await preview(token, `${site.url}/shop/espresso.html`)).statusCode, 201);
});

test('Idempotency-Key is not supported: a retry loads again and spends another credit', async () => {
  const { token } = await createAccountWithToken(t.app);
  const first = await preview(token, `${site.url}/shop/espresso.html`, 'html', { 'idempotency-key': 'same-key-123' });
  t.clock.advance(SPACING_MS);
  const second = await preview(token, `${site.url}/shop/espresso.html`, 'html', { 'idempotency-key': 'same-key-123' });
  assert.equal(second.statusCode, 201);
  assert.notEqual(first.json().data.id, second.json().data.id);
  assert.equal(await previewsUsedToday(token), 2);
});

test('a page that cannot be loaded is 422 validation_failed and spends the credit', async () => {
  const { token } = await createAccountWithToken(t.app);
  const res = await preview(token, `${site.url}/gone`);
  assert.equal(res.statusCode, 422);
  assert.equal(res.json().error.code, 'validation_failed');
  assert.equal(await previewsUsedToday(token), 1);
});

test('a page behind an anti-bot wall is 422 validation_failed naming the issue blocked and its reason, never a preview of the wall', async () => {
  const { token } = await createAccountWithToken(t.app);
  const res = await preview(token, `${site.url}/walls/cloudflare-challenge.html`);
  assert.equal(res.statusCode, 422, res.body);
  const error = res.json().error;
  assert.equal(error.code, 'validation_failed');
  assert.deepEqual(error.details, [
    { field: 'url', message: 'blocked: the site blocked the check: a Cloudflare challenge page (HTTP 200)' },
  ]);
  assert.equal(await previewsUsedToday(token), 1, 'the page was loaded: the credit is spent like any other load failure');
});

test('a non-http URL is 422 and costs no credit', async () => {
  const { token } = await createAccountWithToken(t.app);
  for (const url of ['file:///etc/passwd', 'gopher://127.0.0.1/', 'not a url', `http://user:pw@127.0.0.1:${site.port}/`]) {
    const res = await preview(token, url);
    assert.equal(res.statusCode, 422, url);
  }
  assert.equal(await previewsUsedToday(token), 0);
});

test('browser mode sees content inserted by JavaScript; html mode does not', async () => {
  const { token } = await createAccountWithToken(t.app);
  const target = [{ id: 'price', kind: 'price', selection: { scope: 'selector', selector: '#price' }, currency: 'USD' }];
  const browser = await preview(token, `${site.url}/shop/rendered-price.html`, 'browser');
  assert.equal(browser.statusCode, 201, browser.body);
  assert.equal(browser.json().data.load_mode, 'browser');
  const rendered = await evaluate(token, browser.json().data.id, target);
  assert.equal(rendered.json().data.targets[0].value, 24900);
  t.clock.advance(SPACING_MS);
  const plain = await preview(token, `${site.url}/shop/rendered-price.html`, 'html');
  const raw = await evaluate(token, plain.json().data.id, target);
  assert.equal(raw.json().data.targets[0].ok, false);
  assert.equal(raw.json().data.targets[0].issues[0].code, 'price_not_found');
});

test('an invalid selector is 422 selector_invalid and a costly one 422 selector_too_costly', async () => {
  const { token } = await createAccountWithToken(t.app);
  site.route('/deep.html', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(`<html><body><main>${'<div>'.repeat(60)}${'<span class="s">x</span>'.repeat(5)}${'</div>'.repeat(60)}</main></body></html>`);
  });
  const created = await preview(token, `${site.url}/deep.html`);
  for (const [selector, code] of [
    ['p[[[', 'selector_invalid'],
    ['section div div div div div div span', 'selector_too_costly'],
  ]) {
    const res = await evaluate(token, created.json().data.id, [{ id: 't', kind: 'text', selection: { scope: 'selector', selector } }]);
    assert.equal(res.statusCode, 422);
    assert.equal(res.json().error.code, 'target_invalid');
    assert.equal(res.json().error.details[0].field, 'targets[0].selection.selector');
    assert.match(res.json().error.details[0].message, new RegExp(`^${code}: `));
  }
});
