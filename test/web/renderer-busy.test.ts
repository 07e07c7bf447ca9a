import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { bearer, createAccountWithToken, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.ts';
import { gatedPages, type GatedPages } from '../helpers/gated-page.ts';
import { createOwner, signedIn } from '../helpers/dashboard-client.ts';

// The dashboard maps the loader's errors as the API does: a browser preview
// while the only browser page is in use is the form again, saying the
// renderer is busy and when to try again — not an internal error.
let t: TestApp;
let site: FixtureServer;
let gate: GatedPages;

before(async () => {
  t = await startTestApp({ loaders: { maxBrowserPages: 1, browserPreviewsWaiting: 0 } });
  site = await startFixtureServer();
  gate = gatedPages([site], ['/held']);
  gate.close();
});
after(async () => {
  gate.open();
  await t.close();
  await site.close();
});

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!condition()) {
    assert.ok(Date.now() < deadline, `timed out waiting until ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

test('a browser preview on the dashboard while the renderer is busy shows the form: busy, try again in N s', async () => {
  const other = await createAccountWithToken(t.app);
  const holding = t.app.inject({
    method: 'POST',
    url: '/api/v1/previews',
    headers: { ...bearer(other.token), 'content-type': 'application/json' },
    payload: { url: `${site.url}/held`, load_mode: 'browser' },
  });
  await until(() => gate.waiting === 1, 'the browser holds the only page');

  const client = await signedIn(t.app, (await createOwner(t.app)).email);
  await client.get('/monitors/new');
  const busy = await client.post('/monitors/new', { url: `${site.url}/shop/espresso.html`, load_mode: 'browser' });
  assert.equal(busy.statusCode, 503);
  const retryAfter = Number(busy.headers['retry-after']);
  assert.ok(retryAfter > 0);
  assert.match(busy.body, new RegExp(`role="alert">Busy, try again in ${retryAfter} s`));
  assert.match(busy.body, /name="url"[^>]*value="[^"]*\/shop\/espresso\.html"/, 'the form keeps what was typed');

  gate.open();
  assert.equal((await holding).statusCode, 201);
});
