import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { bearer, createAccountWithToken, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.ts';
import { loadPreview, postMonitor, TITLE_TARGET } from '../helpers/monitor-api.ts';

let t: TestApp;
let site: FixtureServer;
let n = 0;
const page = () => `${site.url}/shop/espresso.html?i=${++n}`;
before(async () => {
  t = await startTestApp({
    plans: { pro: { preview_spacing_seconds: 0, previews_per_day: 1000, previews_per_month: 1000, idempotency_keys_per_day: 5 } },
  });
  site = await startFixtureServer();
});
after(async () => {
  await t.close();
  await site.close();
});

async function body(token: string) {
  return { preview_id: await loadPreview(t.app, token, page()), targets: [TITLE_TARGET], interval_minutes: 5 };
}

async function monitorCount(accountId: string): Promise<number> {
  const rows = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM monitors WHERE account_id = $1', [accountId]);
  return rows[0]!.n;
}

test('a missing Idempotency-Key is 400 idempotency_key_missing', async () => {
  const { token } = await createAccountWithToken(t.app);
  const res = await postMonitor(t.app, token, await body(token), null);
  assert.equal(res.statusCode, 400);
  assert.equal(res.json().error.code, 'idempotency_key_missing');
});

test('an Idempotency-Key outside 8–128 characters of [A-Za-z0-9._:-] is 400 idempotency_key_invalid', async () => {
  const { token } = await createAccountWithToken(t.app);
  const b = await body(token);
  for (const key of ['short', 'x'.repeat(129), 'has space in it', 'emoji-🙂-key', 'slash/not/allowed']) {
    const res = await postMonitor(t.app, token, b, key);
    assert.equal(res.statusCode, 400, key);
    assert.equal(res.json().error.code, 'idempotency_key_invalid', key);
  }
  assert.equal((await postMonitor(t.app, token, b, 'Ab0._:-x')).statusCode, 201);
});

test('the same key with the same body in any property order replays the result with Idempotency-Replayed', async () => {
  const { token, accountId } = await createAccountWithToken(t.app);
  const b = await body(token);
  const first = await postMonitor(t.app, token, b, 'create-espresso-1');
  const reordered = JSON.stringify({ interval_minutes: b.interval_minutes, targets: b.targets, preview_id: b.preview_id });
  const replay = await postMonitor(t.app, token, reordered, 'create-espresso-1');
  assert.equal(first.statusCode, 201);
  assert.equal(replay.statusCode, 201);
  assert.equal(replay.headers['idempotency-replayed'], 'true');
  assert.equal(first.headers['idempotency-replayed'], undefined);
  assert.deepEqual(replay.json(), first.json());
  assert.equal(replay.headers.location, first.headers.location);
  assert.equal(await monitorCount(accountId), 1);
});

test('the same key with a different body is 409 idempotency_key_reused', async () => {
  const { token } = await createAccountWithToken(t.app);
  const b = await body(token);
  await postMonitor(t.app, token, b, 'create-espresso-2');
  const res = await postMonitor(t.app, token, { ...b, interval_minutes: 10 }, 'create-espresso-2');
  assert.equal(res.statusCode, 409);
  assert.equal(res.json().error.code, 'idempotency_key_reused');
});

test('a failed request does not consume the key', async () => {
  const { token } = await createAccountWithToken(t.app);
  const b = await body(token);
  const failed = await postMonitor(t.app, token, { ...b, interval_minutes: 1 }, 'retry-after-fix');
  assert.equal(failed.statusCode, 422);
  const fixed = await postMonitor(t.app, token, b, 'retry-after-fix');
  assert.equal(fixed.statusCode, 201);
  assert.equal(fixed.headers['idempotency-replayed'], undefined);
});

test('a replay after the monitor was deleted returns the original id and does not recreate it', async () => {
  const { token, accountId } = await createAccountWithToken(t.app);
  const b = await body(token);
  const first = await postMonitor(t.app, token, b, 'create-then-delete');
  const id = first.json().data.id;
  await t.app.inject({ method: 'DELETE', url: `/api/v1/monitors/${id}`, headers: bearer(token) });
  const replay = await postMonitor(t.app, token, b, 'create-then-delete');
  assert.equal(replay.json().data.id, id);
  assert.equal(replay.headers['idempotency-replayed'], 'true');
  assert.equal(await monitorCount(accountId), 0);
});

test('keys are scoped to the account', async () => {
  const a = await createAccountWithToken(t.app);
  const b = await createAccountWithToken(t.app);
  const ra = await postMonitor(t.app, a.token, await body(a.token), 'shared-key-123');
  const rb = await postMonitor(t.app, b.token, await body(b.token), 'shared-key-123');
  assert.equal(rb.statusCode, 201);
  assert.notEqual(ra.json().data.id, rb.json().data.id);
});

test('20 parallel creations with one key produce one monitor and every response carries its id', async () => {
  const { token, accountId } = await createAccountWithToken(t.app);
  const b = await body(token);
  const responses = await Promise.all(Array.from({ length: 20 }, () => postMonitor(t.app, token, b, 'parallel-key-1')));
  const ids = new Set(responses.map((r) => (r.statusCode === 201 ? r.json().data.id : r.statusCode)));
  assert.equal(ids.size, 1, [...ids].join());
  assert.equal(await monitorCount(accountId), 1);
});

test('after 24 hours a key is treated as new', async () => {
  const { token } = await createAccountWithToken(t.app);
  await postMonitor(t.app, token, await body(token), 'day-old-key-1');
  t.clock.advance(24 * 3600_000 + 1000);
  const res = await postMonitor(t.app, token, await body(token), 'day-old-key-1');
  assert.equal(res.statusCode, 201);
  assert.equal(res.headers['idempotency-replayed'], undefined);
});

test('beyond the retained-keys allowance for 24 hours new keys are 429 idempotency_limited', async () => {
  const { token } = await createAccountWithToken(t.app);
  for (let i = 0; i < 5; i++) assert.equal((await postMonitor(t.app, token, await body(token), `limit-key-${i}`)).statusCode, 201);
  const res = await postMonitor(t.app, token, await body(token), 'limit-key-5');
  assert.equal(res.statusCode, 429);
  assert.equal(res.json().error.code, 'idempotency_limited');
  assert.ok(Number(res.headers['retry-after']) > 0);
});
