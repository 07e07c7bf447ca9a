import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { bearer, createAccountWithToken, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.ts';

// Without the operator's allow list, even the local fixture server is a
// private address: the guard refuses it, in both modes, and no credit is spent.
// (Non-loopback addresses are covered by the loader tests inside a
// loopback-only network namespace.)
let t: TestApp;
let site: FixtureServer;
before(async () => {
  t = await startTestApp({ env: { PAGEWATCH_ALLOW_PRIVATE_NETWORKS: '' } });
  site = await startFixtureServer();
});
after(async () => {
  await t.close();
  await site.close();
});

for (const mode of ['html', 'browser']) {
  test(`a ${mode} preview of a loopback address is 422 and costs no credit`, async () => {
    const { token } = await createAccountWithToken(t.app);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/previews',
      headers: { ...bearer(token), 'content-type': 'application/json' },
      payload: { url: `${site.url}/shop/espresso.html`, load_mode: mode },
    });
    assert.equal(res.statusCode, 422, res.body);
    assert.equal(res.json().error.code, 'validation_failed');
    assert.equal(site.hits.get('/shop/espresso.html') ?? 0, 0);
    const usage = await t.app.inject({ method: 'GET', url: '/api/v1/usage', headers: bearer(token) });
    assert.equal(usage.json().data.previews.day.used, 0);
    assert.equal(usage.json().data.previews.month.used, 0);
  });
}
