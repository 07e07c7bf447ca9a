import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FixtureServer } from '../helpers/fixture-server.ts';
import { TITLE_TARGET as TITLE } from '../helpers/monitor-api.ts';
import { ADMIN_TOKEN } from '../helpers/test-credentials.ts';
import { baseEnv, writePlansFile, type PagewatchProcess } from '../helpers/pagewatch-process.ts';
import { createAccountOver, statusCounts } from '../helpers/parallel-requests.ts';
import type { SharedSchema } from '../helpers/shared-schema.ts';
import { SHARED_WORLD_SKIP as SKIP, useSharedWorld } from '../helpers/shared-world.ts';

// Every write path of one account, many requests at once, spread over two
// `pagewatch api` processes on one PostgreSQL: each answers with its success
// or a documented refusal, never a 500 (a lock-order deadlock once did).

const PARALLEL = 25;

let shared: SharedSchema;
let apis: PagewatchProcess[] = [];
let site: FixtureServer;

useSharedWorld({ sites: 1 }, async (w) => {
  shared = w.shared;
  site = w.sites[0]!;
  const env = baseEnv({
    DATABASE_URL: shared.url,
    PAGEWATCH_PLANS_FILE: writePlansFile({
      pro: {
        monitors: 1000,
        preview_spacing_seconds: 0,
        previews_per_day: 1000,
        previews_per_month: 1000,
        manual_checks_per_day: 1000,
        requests_per_minute: 1000,
      },
    }),
  });
  apis = await Promise.all([1, 2].map((n) => w.group.start('api', `api-${n}`, env)));
});

const node = (i: number) => apis[i % apis.length]!.url;

const createAccount = () => createAccountOver([node(0), node(1)]);

// An account may have 4 extractions waiting or running on each node (past that: 503 busy), so previews go
// in waves of 4 per node at once.
const AT_ONCE = 8;

async function previews(headers: Record<string, string>, count: number, tag: string): Promise<string[]> {
  const responses: Response[] = [];
  for (let start = 0; start < count; start += AT_ONCE) {
    const wave = Array.from({ length: Math.min(AT_ONCE, count - start) }, (_, j) => start + j);
    responses.push(
      ...(await Promise.all(
        wave.map((i) =>
          fetch(`${node(i)}/api/v1/previews`, {
            method: 'POST',
            headers,
            body: JSON.stringify({ url: `${site.url}/shop/espresso.html?${tag}=${i}`, load_mode: 'html' }),
          }),
        ),
      )),
    );
  }
  const bodies = await Promise.all(responses.map((r) => r.json()));
  assert.deepEqual(
    responses.map((r) => r.status),
    responses.map(() => 201),
    JSON.stringify(bodies.find((b) => !b.data)),
  );
  return bodies.map((b) => b.data.id as string);
}

test('parallel previews of one account over both API nodes are all created', { skip: SKIP }, async () => {
  const { headers } = await createAccount();
  assert.equal((await previews(headers, PARALLEL, 'p')).length, PARALLEL);
});

test(
  'parallel monitor creations of one account, each with its own key, over both API nodes: 201 or 422, never 500',
  { skip: SKIP },
  async () => {
    const { accountId, headers } = await createAccount();
    const ids = await previews(headers, PARALLEL, 'm');
    // Only the account's three most recent previews are valid: those create monitors, the others are refused.
    const responses = await Promise.all(
      ids.map((previewId, i) =>
        fetch(`${node(i)}/api/v1/monitors`, {
          method: 'POST',
          headers: { ...headers, 'idempotency-key': `parallel-create-${i}` },
          body: JSON.stringify({ preview_id: previewId, targets: [TITLE], interval_minutes: 60 }),
        }),
      ),
    );
    assert.deepEqual(await statusCounts(responses), { 201: 3, '422 preview_invalid': PARALLEL - 3 });
    const rows = await shared.db.query('SELECT 1 FROM monitors WHERE account_id = $1', [accountId]);
    assert.equal(rows.length, 3);
  },
);

test(
  'parallel creations from one preview over both API nodes: one 201, the rest 409 monitor_exists, never 500',
  { skip: SKIP },
  async () => {
    const { headers } = await createAccount();
    const [previewId] = await previews(headers, 1, 's');
    const responses = await Promise.all(
      Array.from({ length: PARALLEL }, (_, i) =>
        fetch(`${node(i)}/api/v1/monitors`, {
          method: 'POST',
          headers: { ...headers, 'idempotency-key': `parallel-same-${i}` },
          body: JSON.stringify({ preview_id: previewId, targets: [TITLE], interval_minutes: 60 }),
        }),
      ),
    );
    assert.deepEqual(await statusCounts(responses), { 201: 1, '409 monitor_exists': PARALLEL - 1 });
  },
);

test("parallel manual checks of one account's monitors over both API nodes: all 202, never 500", { skip: SKIP }, async () => {
  const { accountId, headers } = await createAccount();
  for (let i = 0; i < 10; i++) {
    const [previewId] = await previews(headers, 1, `c${i}`);
    const created = await fetch(`${node(i)}/api/v1/monitors`, {
      method: 'POST',
      headers: { ...headers, 'idempotency-key': `parallel-check-monitor-${i}` },
      body: JSON.stringify({ preview_id: previewId, targets: [TITLE], interval_minutes: 60 }),
    });
    assert.equal(created.status, 201);
  }
  const monitors = await shared.db.query<{ id: string }>('SELECT id FROM monitors WHERE account_id = $1', [accountId]);
  const responses = await Promise.all(
    Array.from({ length: PARALLEL }, (_, i) =>
      fetch(`${node(i)}/api/v1/monitors/${monitors[i % monitors.length]!.id}/checks`, {
        method: 'POST',
        headers: { ...headers, 'idempotency-key': `parallel-check-${i}` },
        body: '{}',
      }),
    ),
  );
  assert.deepEqual(await statusCounts(responses), { 202: PARALLEL });
});

test('parallel token creations of one account over both nodes stop exactly at five active tokens', { skip: SKIP }, async () => {
  const { accountId } = await createAccount();
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };
  const responses = await Promise.all(
    Array.from({ length: 12 }, (_, i) =>
      fetch(`${node(i)}/admin/v1/accounts/${accountId}/tokens`, {
        method: 'POST',
        headers: admin,
        body: JSON.stringify({ name: `t${i}`, scopes: ['usage:read'], expires_in_days: 1 }),
      }),
    ),
  );
  const counts = await statusCounts(responses);
  assert.equal(counts['201'], 4, `one token exists already: ${JSON.stringify(counts)}`);
  assert.equal(Object.keys(counts).filter((k) => k.startsWith('5')).length, 0, JSON.stringify(counts));
});

/** `count` POSTs of one account to `path` spread over both nodes at once, with the n-th body. */
function spread(headers: Record<string, string>, path: string, count: number, body: (n: number) => unknown): Promise<Response[]> {
  return Promise.all(
    Array.from({ length: count }, (_, i) => fetch(`${node(i)}${path}`, { method: 'POST', headers, body: JSON.stringify(body(i)) })),
  );
}

test('parallel channel creations of one account over both nodes stop exactly at the plan’s ten channels', { skip: SKIP }, async () => {
  const { accountId, headers } = await createAccount();
  const counts = await statusCounts(await spread(headers, '/api/v1/channels', 25, (i) => ({ name: `c${i}`, url: `ntfy://topic_${i}` })));
  assert.deepEqual(counts, { 201: 10, '409 allowance_exhausted': 15 });
  const rows = await shared.db.query<{ n: number }>('SELECT count(*)::int AS n FROM channels WHERE account_id = $1', [accountId]);
  assert.equal(rows[0]!.n, 10);
});

test(
  'parallel feed token creations of one account over both nodes stop exactly at the plan’s ten feed tokens',
  { skip: SKIP },
  async () => {
    const { accountId, headers } = await createAccount();
    const counts = await statusCounts(await spread(headers, '/api/v1/feed-tokens', 25, (i) => ({ name: `f${i}` })));
    assert.deepEqual(counts, { 201: 10, '409 allowance_exhausted': 15 });
    const rows = await shared.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM feed_tokens WHERE account_id = $1 AND revoked_at IS NULL',
      [accountId],
    );
    assert.equal(rows[0]!.n, 10);
  },
);
