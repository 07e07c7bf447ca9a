import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { admin, bearer, createAccountWithToken, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.ts';
import { createMonitorFor, loadPreview, postMonitor, TITLE_TARGET } from '../helpers/monitor-api.ts';

// Many requests of one account at once, as a client with a thread pool sends
// them. Every write path locks per account or per monitor; none may deadlock
// (500) or lose a limit: each answer is a success or the documented 4xx.

let t: TestApp;
let site: FixtureServer;
let n = 0;
const page = () => `${site.url}/shop/espresso.html?i=${++n}`;

before(async () => {
  t = await startTestApp({
    plans: {
      pro: {
        preview_spacing_seconds: 0,
        previews_per_day: 1000,
        previews_per_month: 1000,
        requests_per_minute: 100_000,
        requests_per_day: 100_000,
      },
    },
    // The extraction queue's own bound per account (503 busy, work-queues.test.ts) is not under test here:
    // on a loaded machine 25 previews can hold more than the default 4 extractions at once.
    loaders: { extractionsPerAccount: 50 },
  });
  site = await startFixtureServer();
});
after(async () => {
  await t.close();
  await site.close();
});

function statusCounts(statuses: number[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const s of statuses) counts[s] = (counts[s] ?? 0) + 1;
  return counts;
}

test('40 parallel monitor creations of one account, each with its own key: one monitor per URL, the rest 409 monitor_exists', async () => {
  const { accountId, token } = await createAccountWithToken(t.app);
  // Three URLs (a preview is kept only among the account's three newest): each becomes one monitor.
  const previews = [
    await loadPreview(t.app, token, page()),
    await loadPreview(t.app, token, page()),
    await loadPreview(t.app, token, page()),
  ];
  const responses = await Promise.all(
    Array.from({ length: 40 }, (_, i) =>
      postMonitor(t.app, token, { preview_id: previews[i % 3], targets: [TITLE_TARGET], interval_minutes: 5 }, `parallel-create-${i}`),
    ),
  );
  assert.deepEqual(statusCounts(responses.map((r) => r.statusCode)), { 201: 3, 409: 37 }, responses.map((r) => r.body).join('\n'));
  assert.ok(responses.every((r) => r.statusCode === 201 || r.json().error.code === 'monitor_exists'));
  const rows = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM monitors WHERE account_id = $1', [accountId]);
  assert.equal(rows[0]!.n, 3);
});

test('parallel manual checks of one account: each monitor gets one queued request, returned to every caller', async () => {
  const { token } = await createAccountWithToken(t.app);
  const monitors = [await createMonitorFor(t.app, token, page()), await createMonitorFor(t.app, token, page())];
  const responses = await Promise.all(
    Array.from({ length: 30 }, (_, i) =>
      t.app.inject({
        method: 'POST',
        url: `/api/v1/monitors/${monitors[i % 2]}/checks`,
        headers: { ...bearer(token), 'content-type': 'application/json', 'idempotency-key': `parallel-check-${i}` },
        payload: {},
      }),
    ),
  );
  assert.deepEqual(statusCounts(responses.map((r) => r.statusCode)), { 202: 30 }, responses.map((r) => r.body).join('\n'));
  const receipts = new Set(responses.map((r) => r.json().data.check_id));
  assert.equal(receipts.size, 2, 'one pending request per monitor');
});

test('parallel previews of one account within the plan all succeed', async () => {
  const { token } = await createAccountWithToken(t.app);
  // The day allows 1000 here; the month 1000 too: 25 at once all fit.
  const responses = await Promise.all(
    Array.from({ length: 25 }, () =>
      t.app.inject({
        method: 'POST',
        url: '/api/v1/previews',
        headers: { ...bearer(token), 'content-type': 'application/json' },
        payload: { url: page(), load_mode: 'html' },
      }),
    ),
  );
  assert.deepEqual(statusCounts(responses.map((r) => r.statusCode)), { 201: 25 }, responses.map((r) => r.body).join('\n'));
});

test('parallel token creations of one account stop exactly at the plan’s token allowance (409 allowance_exhausted)', async () => {
  const { accountId } = await createAccountWithToken(t.app);
  const responses = await Promise.all(
    Array.from({ length: 12 }, (_, i) =>
      admin(t.app, 'POST', `/accounts/${accountId}/tokens`, { name: `parallel-${i}`, scopes: ['monitors:read'], expires_in_days: 1 }),
    ),
  );
  // The account already holds one token; Pro allows five.
  assert.deepEqual(statusCounts(responses.map((r) => r.statusCode)), { 201: 4, 409: 8 }, responses.map((r) => r.body).join('\n'));
  assert.ok(responses.every((r) => r.statusCode === 201 || r.json().error.code === 'allowance_exhausted'));
});

test('parallel channel creations of one account stop exactly at the plan’s channels (409 allowance_exhausted)', async () => {
  const { accountId, token } = await createAccountWithToken(t.app);
  const responses = await Promise.all(
    Array.from({ length: 25 }, (_, i) =>
      t.app.inject({
        method: 'POST',
        url: '/api/v1/channels',
        headers: { ...bearer(token), 'content-type': 'application/json' },
        payload: JSON.stringify({ name: `parallel-${i}`, url: `ntfy://parallel_topic_${i}` }),
      }),
    ),
  );
  // Pro allows ten channels.
  assert.deepEqual(statusCounts(responses.map((r) => r.statusCode)), { 201: 10, 409: 15 }, responses.map((r) => r.body).join('\n'));
  assert.ok(responses.every((r) => r.statusCode === 201 || r.json().error.code === 'allowance_exhausted'));
  const rows = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM channels WHERE account_id = $1', [accountId]);
  assert.equal(rows[0]!.n, 10);
});

test('parallel feed token creations of one account stop exactly at the plan’s feed tokens (409 allowance_exhausted)', async () => {
  const { accountId, token } = await createAccountWithToken(t.app);
  const responses = await Promise.all(
    Array.from({ length: 25 }, (_, i) =>
      t.app.inject({
        method: 'POST',
        url: '/api/v1/feed-tokens',
        headers: { ...bearer(token), 'content-type': 'application/json' },
        payload: JSON.stringify({ name: `parallel-${i}` }),
      }),
    ),
  );
  // Pro allows ten active feed tokens.
  assert.deepEqual(statusCounts(responses.map((r) => r.statusCode)), { 201: 10, 409: 15 }, responses.map((r) => r.body).join('\n'));
  assert.ok(responses.every((r) => r.statusCode === 201 || r.json().error.code === 'allowance_exhausted'));
  const rows = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM feed_tokens WHERE account_id = $1 AND revoked_at IS NULL', [
    accountId,
  ]);
  assert.equal(rows[0]!.n, 10);
});

test('parallel updates, manual checks and deletions of one account’s monitors never fail with 500', async () => {
  const { token } = await createAccountWithToken(t.app);
  const monitors = [
    await createMonitorFor(t.app, token, page()),
    await createMonitorFor(t.app, token, page()),
    await createMonitorFor(t.app, token, page()),
  ];
  const headers = { ...bearer(token), 'content-type': 'application/json' };
  const requests = Array.from({ length: 36 }, (_, i) => {
    const id = monitors[i % 3];
    if (i % 4 === 0) return t.app.inject({ method: 'PATCH', url: `/api/v1/monitors/${id}`, headers, payload: { name: `renamed ${i}` } });
    if (i % 4 === 1)
      return t.app.inject({
        method: 'PATCH',
        url: `/api/v1/monitors/${id}`,
        headers,
        payload: { status: i % 8 === 1 ? 'paused' : 'active' },
      });
    if (i % 4 === 2) {
      return t.app.inject({
        method: 'POST',
        url: `/api/v1/monitors/${id}/checks`,
        headers: { ...headers, 'idempotency-key': `mixed-check-${i}` },
        payload: {},
      });
    }
    return i > 24
      ? t.app.inject({ method: 'DELETE', url: `/api/v1/monitors/${id}`, headers: bearer(token) })
      : t.app.inject({ url: `/api/v1/monitors/${id}`, headers });
  });
  const responses = await Promise.all(requests);
  for (const r of responses) {
    // 404: deleted meanwhile; 409: a check of a monitor paused meanwhile (check_not_allowed).
    assert.ok([200, 202, 204, 404, 409].includes(r.statusCode), `${r.statusCode} ${r.body}`);
    if (r.statusCode === 409) assert.equal(r.json().error.code, 'check_not_allowed');
  }
});
