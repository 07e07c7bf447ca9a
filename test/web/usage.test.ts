import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { admin, bearer, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { createOwner, signedIn } from '../helpers/dashboard-client.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

test('the usage page shows every allowance of GET /usage as a bar with used, limit and reset time', async () => {
  const { accountId, email } = await createOwner(t.app);
  const token = (
    await admin(t.app, 'POST', `/accounts/${accountId}/tokens`, { name: 'u', scopes: ['usage:read'], expires_in_days: 30 })
  ).json().data.token;
  for (let i = 0; i < 3; i++)
    assert.equal((await t.app.inject({ method: 'GET', url: '/api/v1/usage', headers: bearer(token) })).statusCode, 200);
  const client = await signedIn(t.app, email);
  const page = await client.get('/usage');
  assert.equal(page.statusCode, 200);
  const meters = page.body.match(/<meter /g) ?? [];
  assert.equal(
    meters.length,
    12,
    'monitors, html/browser checks, manual checks, previews day/month, email, webhook, api minute/day, read bytes, tokens',
  );
  assert.match(page.body, /<label for="api-day">Requests today<\/label><span>3 of 5000 used<\/span>/);
  assert.match(page.body, /<label for="tokens">Active tokens<\/label><span>1 of 5 used<\/span>/);
  assert.match(page.body, /<label for="manual-checks">[^<]+<\/label><span>0 of 20 used<\/span>/);
  assert.match(page.body, /Resets <time datetime="2026-03-11T00:00:00.000Z">2026-03-11 00:00 UTC<\/time>/);
  assert.match(page.body, /Resets <time datetime="2026-04-01T00:00:00.000Z">2026-04-01 00:00 UTC<\/time>/);
  const after = await t.app.inject({ method: 'GET', url: '/api/v1/usage', headers: bearer(token) });
  assert.equal(after.json().data.api.day.used, 4, 'viewing the dashboard costs no API request');
});

test('a free account sees its own limits and that the API needs Pro', async () => {
  const { email } = await createOwner(t.app, 'free');
  const page = await (await signedIn(t.app, email)).get('/usage');
  assert.match(page.body, /Plan: <strong>free<\/strong>/);
  assert.match(page.body, /API access needs the Pro plan/);
  assert.match(page.body, /<label for="checks-browser">[^<]+<\/label><span>0 of 0 used \(not included in the plan\)<\/span>/);
});
