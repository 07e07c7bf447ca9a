import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { admin, bearer, createAccountWithToken, startTestApp, type TestApp } from '../helpers/test-app.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

function unauthorizedBody(body: string) {
  const parsed = JSON.parse(body);
  return { code: parsed.error.code, message: parsed.error.message };
}

test('a request without a bearer token is 401 unauthorized', async () => {
  const res = await t.app.inject({ method: 'GET', url: '/api/v1/usage' });
  assert.equal(res.statusCode, 401);
  assert.equal(res.json().error.code, 'unauthorized');
});

test('missing, malformed, unknown, expired and revoked tokens get identical 401 responses', async () => {
  const { token: expiring } = await createAccountWithToken(t.app, { days: 1 });
  const { token: revoked, tokenId } = await createAccountWithToken(t.app);
  await admin(t.app, 'DELETE', `/tokens/${tokenId}`);
  t.clock.advance(86_400_000 + 1000);
  const headers = [
    {},
    { authorization: 'Basic dXNlcjpwYXNz' },
    { authorization: 'Bearer not-a-token' },
    bearer(`pwk_${'A'.repeat(43)}`),
    bearer(expiring),
    bearer(revoked),
  ];
  const bodies = [];
  for (const h of headers) {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/usage', headers: h });
    assert.equal(res.statusCode, 401);
    bodies.push(unauthorizedBody(res.body));
  }
  for (const body of bodies) assert.deepEqual(body, bodies[0]);
});

test('browser cookies never authenticate the API', async () => {
  const { token } = await createAccountWithToken(t.app);
  const res = await t.app.inject({ method: 'GET', url: '/api/v1/usage', headers: { cookie: `session=${token}; token=${token}` } });
  assert.equal(res.statusCode, 401);
});

test('a token without the required scope is 403 insufficient_scope', async () => {
  const { token } = await createAccountWithToken(t.app, { scopes: ['monitors:read'] });
  const res = await t.app.inject({ method: 'GET', url: '/api/v1/usage', headers: bearer(token) });
  assert.equal(res.statusCode, 403);
  assert.equal(res.json().error.code, 'insufficient_scope');
});

test('an account without Pro gets 403 pro_required and its tokens stay unchanged', async () => {
  const { token, accountId } = await createAccountWithToken(t.app, { plan: 'free' });
  const res = await t.app.inject({ method: 'GET', url: '/api/v1/usage', headers: bearer(token) });
  assert.equal(res.statusCode, 403);
  assert.equal(res.json().error.code, 'pro_required');
  const list = await admin(t.app, 'GET', `/accounts/${accountId}/tokens`);
  assert.equal(list.json().data[0].state, 'disabled');
  assert.equal(list.json().data[0].revoked_at, null);
});

test('re-upgrading to Pro restores tokens that are neither expired nor revoked', async () => {
  const { token, accountId } = await createAccountWithToken(t.app, { plan: 'free' });
  await admin(t.app, 'PATCH', `/accounts/${accountId}`, { plan: 'pro' });
  const res = await t.app.inject({ method: 'GET', url: '/api/v1/usage', headers: bearer(token) });
  assert.equal(res.statusCode, 200);
});

test('X-Request-Id is a uuid on every response and equals the error request_id', async () => {
  const res = await t.app.inject({ method: 'GET', url: '/api/v1/usage' });
  const id = res.headers['x-request-id'];
  assert.match(String(id), /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  assert.equal(res.json().error.request_id, id);
  const other = await t.app.inject({ method: 'GET', url: '/elsewhere' });
  assert.ok(other.headers['x-request-id']);
});

test('authenticated responses are no-store and carry no CORS headers', async () => {
  const { token } = await createAccountWithToken(t.app);
  const res = await t.app.inject({ method: 'GET', url: '/api/v1/usage', headers: { ...bearer(token), origin: 'https://evil.example' } });
  assert.equal(res.statusCode, 200);
  assert.equal(res.headers['cache-control'], 'no-store');
  for (const name of Object.keys(res.headers)) assert.ok(!name.startsWith('access-control-'), name);
  const preflight = await t.app.inject({
    method: 'OPTIONS',
    url: '/api/v1/usage',
    headers: { origin: 'https://evil.example', 'access-control-request-method': 'GET' },
  });
  for (const name of Object.keys(preflight.headers)) assert.ok(!name.startsWith('access-control-'), name);
});

test('an unknown path under /api/v1 is 404 not_found in the error envelope', async () => {
  const { token } = await createAccountWithToken(t.app);
  const res = await t.app.inject({ method: 'GET', url: '/api/v1/nothing-here', headers: bearer(token) });
  assert.equal(res.statusCode, 404);
  assert.equal(res.json().error.code, 'not_found');
});

test('last_used_at is recorded on first use and then at most once a minute', async () => {
  const { token, accountId } = await createAccountWithToken(t.app);
  const lastUsed = async () => (await admin(t.app, 'GET', `/accounts/${accountId}/tokens`)).json().data[0].last_used_at;
  const use = () => t.app.inject({ method: 'GET', url: '/api/v1/usage', headers: bearer(token) });
  assert.equal(await lastUsed(), null);
  const first = t.clock.now().toISOString();
  await use();
  assert.equal(await lastUsed(), first);
  t.clock.advance(60_000);
  await use();
  assert.equal(await lastUsed(), first);
  t.clock.advance(1000);
  const later = t.clock.now().toISOString();
  await use();
  assert.equal(await lastUsed(), later);
});
