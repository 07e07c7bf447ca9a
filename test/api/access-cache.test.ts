import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiAccess } from '../../src/services/api-access.ts';
import { hashTokenSecret } from '../../src/services/token-secrets.ts';
import { admin, bearer, createAccountWithToken, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { testDatabaseUrl } from '../helpers/test-database.ts';

// Tokens and the API status come from a cache in the process (src/services/api-access.ts).
// Every change that makes a token unusable is effective on the next request of the
// process that made it; changes made elsewhere (here: SQL on the store) within a second.
// test/scale-out/access-invalidation.test.ts checks the same across two API processes.

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

const usage = (token: string) => t.app.inject({ method: 'GET', url: '/api/v1/usage', headers: bearer(token) });

/** The status of the first answer that is not 200 within `ms`, or 200. */
async function statusWithin(token: string, ms: number): Promise<number> {
  const deadline = Date.now() + ms;
  for (;;) {
    const res = await usage(token);
    if (res.statusCode !== 200 || Date.now() > deadline) return res.statusCode;
    await new Promise((r) => setTimeout(r, 20));
  }
}

test('a revoked token is refused on the next request of the process that revoked it', async () => {
  const { token, tokenId } = await createAccountWithToken(t.app);
  assert.equal((await usage(token)).statusCode, 200);
  assert.equal((await admin(t.app, 'DELETE', `/tokens/${tokenId}`)).statusCode, 204);
  assert.equal((await usage(token)).statusCode, 401);
});

test('a plan change to free is effective on the next request: 403 pro_required', async () => {
  const { token, accountId } = await createAccountWithToken(t.app);
  assert.equal((await usage(token)).statusCode, 200);
  await admin(t.app, 'PATCH', `/accounts/${accountId}`, { plan: 'free' });
  const res = await usage(token);
  assert.equal(res.statusCode, 403);
  assert.equal(res.json().error.code, 'pro_required');
});

test('closing the API is effective on the next request: 503 unavailable', async () => {
  const { token } = await createAccountWithToken(t.app);
  assert.equal((await usage(token)).statusCode, 200);
  await admin(t.app, 'PUT', '/api-status', { open: false });
  try {
    const res = await usage(token);
    assert.equal(res.statusCode, 503);
    assert.equal(res.json().error.code, 'unavailable');
  } finally {
    await admin(t.app, 'PUT', '/api-status', { open: true });
  }
  assert.equal((await usage(token)).statusCode, 200);
});

test('a cached token is refused once it expires by the app clock', async () => {
  const { token } = await createAccountWithToken(t.app, { days: 1 });
  assert.equal((await usage(token)).statusCode, 200);
  t.clock.advance(86_400_000);
  assert.equal((await usage(token)).statusCode, 401);
});

test('a scope taken away in the store directly is refused within a second: 403 insufficient_scope', async () => {
  const { token, tokenId } = await createAccountWithToken(t.app);
  assert.equal((await usage(token)).statusCode, 200);
  await t.db.query(`UPDATE api_tokens SET scopes = '{monitors:read}' WHERE id = $1`, [tokenId]);
  assert.equal(await statusWithin(token, 1000), 403);
  assert.equal((await usage(token)).json().error.code, 'insufficient_scope');
});

test('a revocation made in the store directly is refused within a second', async () => {
  const { token, tokenId } = await createAccountWithToken(t.app);
  assert.equal((await usage(token)).statusCode, 200);
  await t.db.query('UPDATE api_tokens SET revoked_at = now() WHERE id = $1', [tokenId]);
  assert.equal(await statusWithin(token, 1000), 401);
});

test('without an announcement a cached entry is trusted for the time-to-live only', async () => {
  const { token, tokenId } = await createAccountWithToken(t.app);
  let now = 0;
  const access = new ApiAccess(t.db, { ttlMs: 5000, monotonicNow: () => now });
  const hash = hashTokenSecret(token);
  assert.equal((await access.lookup(hash)).token?.revoked_at, null);
  // Not started: this cache hears no announcement, like a process whose listening connection is down.
  await t.db.query('UPDATE api_tokens SET revoked_at = now() WHERE id = $1', [tokenId]);
  now = 4999;
  assert.equal((await access.lookup(hash)).token?.revoked_at, null);
  now = 5000;
  assert.notEqual((await access.lookup(hash)).token?.revoked_at, null);
});

test('the cache keeps at most maxTokens tokens, dropping the least recently used', async () => {
  const tokens = [];
  for (let i = 0; i < 3; i++) tokens.push(hashTokenSecret((await createAccountWithToken(t.app)).token));
  let queries = 0;
  // The cast gives the counting wrapper query's generic signature back (the lint rule misreads it as a no-op).
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion
  const counting = { ...t.db, query: (sql: string, params?: unknown[]) => (queries++, t.db.query(sql, params)) } as typeof t.db;
  const access = new ApiAccess(counting, { maxTokens: 2 });
  const [first, second, third] = tokens;
  assert.ok(first && second && third);
  await access.lookup(first);
  await access.lookup(second);
  await access.lookup(first);
  await access.lookup(third);
  assert.equal(queries, 3);
  await access.lookup(first);
  assert.equal(queries, 3, 'recently used: kept');
  await access.lookup(second);
  assert.equal(queries, 4, 'least recently used: dropped');
});

test('requests arriving together for a token not cached share one lookup', async () => {
  const { token } = await createAccountWithToken(t.app);
  let queries = 0;
  // The cast gives the counting wrapper query's generic signature back (the lint rule misreads it as a no-op).
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion
  const counting = { ...t.db, query: (sql: string, params?: unknown[]) => (queries++, t.db.query(sql, params)) } as typeof t.db;
  const access = new ApiAccess(counting);
  const hash = hashTokenSecret(token);
  const found = await Promise.all(Array.from({ length: 20 }, () => access.lookup(hash)));
  assert.equal(queries, 1);
  assert.ok(found.every((f) => f.token?.token_hash === hash));
});

const POSTGRES_ONLY = testDatabaseUrl ? false : 'PostgreSQL only: PGlite notifies in the process';

test('after its listening connection is lost and back, the cache hears changes again', { skip: POSTGRES_ONLY }, async () => {
  const { token, tokenId } = await createAccountWithToken(t.app);
  assert.equal((await usage(token)).statusCode, 200);
  const listener = `pagewatch listener ${process.pid}`;
  const backends = async () =>
    (await t.db.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE application_name = $1', [listener])).map((r) => r.pid);
  const [lost] = await backends();
  await t.db.query('SELECT pg_terminate_backend($1)', [lost]);
  const deadline = Date.now() + 5000;
  while (!(await backends()).some((pid) => pid !== lost)) {
    assert.ok(Date.now() < deadline, 'listening again within 5 s');
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.equal((await usage(token)).statusCode, 200);
  await t.db.query('UPDATE api_tokens SET revoked_at = now() WHERE id = $1', [tokenId]);
  assert.equal(await statusWithin(token, 1000), 401);
});
