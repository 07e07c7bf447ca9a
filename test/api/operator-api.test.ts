import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { admin, bearer, createAccountWithToken, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { ADMIN_TOKEN } from '../helpers/test-credentials.ts';
import { insertMonitorRow } from '../helpers/monitor-rows.ts';
import { TITLE } from '../helpers/watched-page.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

test('the operator API does not exist when PAGEWATCH_ADMIN_TOKEN is unset', async () => {
  const bare = await startTestApp({ env: { PAGEWATCH_ADMIN_TOKEN: '' } });
  try {
    const res = await bare.app.inject({
      method: 'POST',
      url: '/admin/v1/accounts',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      payload: '{"email":"a@b.co","plan":"pro"}',
    });
    assert.equal(res.statusCode, 404);
    assert.equal(res.json().error.code, 'not_found');
  } finally {
    await bare.close();
  }
});

test('the operator API refuses a wrong operator token with 401', async () => {
  const res = await t.app.inject({
    method: 'GET',
    url: '/admin/v1/api-status',
    headers: { authorization: 'Bearer wrong-token-wrong-token' },
  });
  assert.equal(res.statusCode, 401);
});

test('creating an account returns 201 with id, email and plan', async () => {
  const res = await admin(t.app, 'POST', '/accounts', { email: 'Owner@Example.com', plan: 'pro' });
  assert.equal(res.statusCode, 201);
  assert.equal(res.json().data.email, 'owner@example.com');
  assert.equal(res.json().data.plan, 'pro');
  const read = await admin(t.app, 'GET', `/accounts/${res.json().data.id}`);
  assert.deepEqual(read.json().data, { ...res.json().data, webhook_url: null, time_zone: 'UTC', email_mode: 'each', digest_hour: 8 });
});

test('a token is shown once with the pwk_ prefix and listed later without its secret', async () => {
  const { accountId, token } = await createAccountWithToken(t.app);
  assert.match(token, /^pwk_[A-Za-z0-9_-]{43}$/);
  const list = await admin(t.app, 'GET', `/accounts/${accountId}/tokens`);
  assert.equal(list.statusCode, 200);
  assert.ok(!list.body.includes(token));
  assert.equal(list.json().data[0].hint, token.slice(0, 8));
});

test('tokens are stored only as SHA-256 hashes', async () => {
  const { token } = await createAccountWithToken(t.app);
  const rows = await t.db.query<{ token_hash: string }>('SELECT token_hash FROM api_tokens');
  assert.ok(rows.every((r) => r.token_hash !== token && /^[0-9a-f]{64}$/.test(r.token_hash)));
  const { createHash } = await import('node:crypto');
  assert.ok(rows.some((r) => r.token_hash === createHash('sha256').update(token).digest('hex')));
});

test('a sixth active token is refused; revoking one makes room', async () => {
  const { accountId, tokenId } = await createAccountWithToken(t.app);
  const create = () => admin(t.app, 'POST', `/accounts/${accountId}/tokens`, { name: 'x', scopes: ['usage:read'], expires_in_days: 30 });
  for (let i = 0; i < 4; i++) assert.equal((await create()).statusCode, 201);
  const sixth = await create();
  assert.equal(sixth.statusCode, 409);
  assert.equal(sixth.json().error.code, 'allowance_exhausted');
  assert.equal((await admin(t.app, 'DELETE', `/tokens/${tokenId}`)).statusCode, 204);
  assert.equal((await create()).statusCode, 201);
});

test('token expiry must be 1 to 365 days', async () => {
  const { accountId } = await createAccountWithToken(t.app);
  for (const days of [0, 366]) {
    const res = await admin(t.app, 'POST', `/accounts/${accountId}/tokens`, { name: 'x', scopes: ['usage:read'], expires_in_days: days });
    assert.equal(res.statusCode, 422);
  }
});

test('only the five scopes of the specification can be granted', async () => {
  const { accountId } = await createAccountWithToken(t.app);
  const res = await admin(t.app, 'POST', `/accounts/${accountId}/tokens`, { name: 'x', scopes: ['admin:all'], expires_in_days: 3 });
  assert.equal(res.statusCode, 422);
});

test('setting a webhook URL returns a whsec_ secret once; null removes the endpoint', async () => {
  const { accountId } = await createAccountWithToken(t.app);
  const set = await admin(t.app, 'PATCH', `/accounts/${accountId}`, { webhook_url: 'https://hooks.example.com/pagewatch' });
  assert.equal(set.statusCode, 200);
  assert.match(set.json().data.webhook_secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
  assert.equal(Buffer.from(set.json().data.webhook_secret.slice(6), 'base64').length, 32);
  const read = await admin(t.app, 'GET', `/accounts/${accountId}`);
  assert.equal(read.json().data.webhook_url, 'https://hooks.example.com/pagewatch');
  assert.equal(read.json().data.webhook_secret, undefined);
  const removed = await admin(t.app, 'PATCH', `/accounts/${accountId}`, { webhook_url: null });
  assert.equal(removed.json().data.webhook_url, null);
});

test('a webhook URL the SSRF guard would refuse at delivery is refused at once with 422, and nothing is changed', async () => {
  const { accountId } = await createAccountWithToken(t.app);
  for (const url of [
    'http://10.0.0.5/hook',
    'http://169.254.169.254/latest',
    'https://user:pw@hooks.example.com/',
    'http://93.184.216.34:8443/',
    'ftp://hooks.example.com/',
  ]) {
    const res = await admin(t.app, 'PATCH', `/accounts/${accountId}`, { webhook_url: url });
    assert.equal(res.statusCode, 422, url);
    assert.equal(res.json().error.code, 'validation_failed');
    assert.equal(res.json().error.details[0].field, 'webhook_url');
  }
  assert.equal((await admin(t.app, 'GET', `/accounts/${accountId}`)).json().data.webhook_url, null);
});

test("an account's time zone is UTC by default and set to IANA names only", async () => {
  const { accountId } = await createAccountWithToken(t.app);
  assert.equal((await admin(t.app, 'GET', `/accounts/${accountId}`)).json().data.time_zone, 'UTC');
  const set = await admin(t.app, 'PATCH', `/accounts/${accountId}`, { time_zone: 'Europe/Berlin' });
  assert.equal(set.statusCode, 200, set.body);
  assert.equal(set.json().data.time_zone, 'Europe/Berlin');
  for (const zone of ['Mars/Olympus_Mons', 'europe/berlin', '+01:00', '']) {
    const res = await admin(t.app, 'PATCH', `/accounts/${accountId}`, { time_zone: zone });
    assert.equal(res.statusCode, 422, `${zone}: ${res.body}`);
    assert.equal(res.json().error.details[0].field, 'time_zone');
  }
  assert.equal((await admin(t.app, 'GET', `/accounts/${accountId}`)).json().data.time_zone, 'Europe/Berlin');
});

test('closing the API answers 503 unavailable with Retry-After and charges nothing', async () => {
  const { token } = await createAccountWithToken(t.app);
  assert.equal((await admin(t.app, 'PUT', '/api-status', { open: false, retry_after_seconds: 120 })).statusCode, 200);
  const closed = await t.app.inject({ method: 'GET', url: '/api/v1/usage', headers: bearer(token) });
  assert.equal(closed.statusCode, 503);
  assert.equal(closed.json().error.code, 'unavailable');
  assert.equal(closed.headers['retry-after'], '120');
  await admin(t.app, 'PUT', '/api-status', { open: true });
  const open = await t.app.inject({ method: 'GET', url: '/api/v1/usage', headers: bearer(token) });
  assert.equal(open.statusCode, 200);
  assert.equal(open.headers['x-ratelimit-remaining'], '59');
});

test('while the API is closed, requests without a token or with an unknown one are 503 too, not 401', async () => {
  await admin(t.app, 'PUT', '/api-status', { open: false, retry_after_seconds: 90 });
  try {
    for (const headers of [{}, { authorization: 'Bearer not-a-token' }, bearer(`pwk_${'B'.repeat(43)}`)]) {
      const res = await t.app.inject({ method: 'GET', url: '/api/v1/usage', headers });
      assert.equal(res.statusCode, 503);
      assert.equal(res.json().error.code, 'unavailable');
      assert.equal(res.headers['retry-after'], '90');
    }
  } finally {
    await admin(t.app, 'PUT', '/api-status', { open: true });
  }
});

test('an unknown account id is 404', async () => {
  const res = await admin(t.app, 'GET', '/accounts/00000000-0000-4000-8000-000000000000');
  assert.equal(res.statusCode, 404);
});

test('the account list pages newest first through next_cursor, every account once, at any page size', async () => {
  for (let i = 0; i < 4; i++) {
    await createAccountWithToken(t.app);
    t.clock.advance(1000);
  }
  // Accounts created in the same instant are ordered by id.
  for (let i = 0; i < 3; i++) await createAccountWithToken(t.app);
  const stored = await t.db.query<{ id: string }>('SELECT id FROM accounts ORDER BY created_at DESC, id DESC');
  for (const limit of [1, 2, 3, 100]) {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`;
      const res = await admin(t.app, 'GET', `/accounts?limit=${limit}${query}`);
      assert.equal(res.statusCode, 200, res.body);
      assert.ok(res.json().data.length <= limit);
      seen.push(...res.json().data.map((a: { id: string }) => a.id));
      cursor = res.json().meta.next_cursor;
    } while (cursor !== null);
    assert.deepEqual(
      seen,
      stored.map((r) => r.id),
      `limit ${limit}`,
    );
  }
});

test('each listed account shows its email, plan, creation time and monitor count', async () => {
  const { accountId } = await createAccountWithToken(t.app, { plan: 'free' });
  for (const n of [1, 2]) {
    await insertMonitorRow(t.db, { accountId, url: `https://shop.example/${n}`, targets: [TITLE], nextCheckAt: t.clock.now() });
  }
  const listed = (await admin(t.app, 'GET', '/accounts?limit=100')).json().data.find((a: { id: string }) => a.id === accountId);
  const account = (await admin(t.app, 'GET', `/accounts/${accountId}`)).json().data;
  assert.deepEqual(listed, { ...account, created_at: t.clock.now().toISOString(), monitors: 2 });
  assert.equal(listed.plan, 'free');
});

test('the account list refuses an undeclared query parameter and a cursor it did not make', async () => {
  const unknown = await admin(t.app, 'GET', '/accounts?plan=pro');
  assert.equal(unknown.statusCode, 400);
  assert.equal(unknown.json().error.code, 'unknown_parameter');
  const forged = await admin(
    t.app,
    'GET',
    `/accounts?cursor=${Buffer.from('{"p":{"c":"2026-01-01T00:00:00Z","i":"x"}}').toString('base64url')}.forged`,
  );
  assert.equal(forged.statusCode, 400);
  assert.equal(forged.json().error.code, 'malformed_cursor');
});
