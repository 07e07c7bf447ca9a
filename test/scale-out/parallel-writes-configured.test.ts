import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FixtureServer } from '../helpers/fixture-server.ts';
import { TITLE_TARGET as TITLE } from '../helpers/monitor-api.ts';
import { setOwnerPasswordOn, signedInOn } from '../helpers/dashboard-over-http.ts';
import { baseEnv, writePlansFile, type PagewatchProcess } from '../helpers/pagewatch-process.ts';
import { createAccountOver, statusCounts, type ApiAccount } from '../helpers/parallel-requests.ts';
import type { SharedSchema } from '../helpers/shared-schema.ts';
import { SHARED_WORLD_SKIP as SKIP, useSharedWorld } from '../helpers/shared-world.ts';

// The write paths that depend on configuration — browser steps, the
// operator's outbound proxies, the dashboard's import — with many requests of
// one account at once over two `pagewatch api` processes on one PostgreSQL:
// each answers with its success or a documented refusal, never a 500, and the
// end state is exact (parallel-writes.test.ts has the unconfigured ones).

const PARALLEL = 25;
/** The plan's monitors: fewer than the three valid previews an account can hold, so the limit bites. */
const MONITORS = 2;
const UNLIMITED = { preview_spacing_seconds: 0, previews_per_day: 1000, previews_per_month: 1000, requests_per_minute: 1000 };

let shared: SharedSchema;
let apis: PagewatchProcess[] = [];
let site: FixtureServer;

useSharedWorld({ sites: 1 }, async (w) => {
  shared = w.shared;
  site = w.sites[0]!;
  const env = baseEnv({
    DATABASE_URL: shared.url,
    // Never reached: changing a monitor's proxy loads nothing, and no worker runs here.
    PAGEWATCH_PROXIES: 'corp=http://127.0.0.1:9,socks=socks5://127.0.0.1:9',
    PAGEWATCH_PRIVATE_PROXIES: 'corp,socks',
    PAGEWATCH_PLANS_FILE: writePlansFile({
      pro: { ...UNLIMITED, monitors: MONITORS },
      // An API plan without proxies.
      free: { ...UNLIMITED, api_access: true, tokens: 5 },
    }),
  });
  apis = await Promise.all([1, 2].map((n) => w.group.start('api', `api-${n}`, env)));
});

const node = (i: number) => apis[i % apis.length]!.url;
const createAccount = (plan: 'pro' | 'free' = 'pro') => createAccountOver([node(0), node(1)], plan);
const pageUrl = (tag: string) => `${site.url}/shop/espresso.html?${tag}`;

/** Step lists that run on any page, each different from the others. */
const STEP_LISTS = [
  [{ action: 'wait', ms: 1 }],
  [{ action: 'scroll', to: 'bottom' }],
  [
    { action: 'wait', ms: 2 },
    { action: 'scroll', to: 'bottom' },
  ],
];

function send(i: number, method: string, path: string, account: ApiAccount, body: unknown, key?: string): Promise<Response> {
  return fetch(`${node(i)}${path}`, {
    method,
    headers: { ...account.headers, ...(key ? { 'idempotency-key': key } : {}) },
    body: JSON.stringify(body),
  });
}

/** PARALLEL monitor creations at once over both nodes, the i-th with bodyOf(i) and its own idempotency key. */
function createAtOnce(account: ApiAccount, bodyOf: (i: number) => unknown, key: string): Promise<Response[]> {
  return Promise.all(Array.from({ length: PARALLEL }, (_, i) => send(i, 'POST', '/api/v1/monitors', account, bodyOf(i), `${key}-${i}`)));
}

/** A preview of `url`, one after the other (browser previews share the machine's one Chromium per node). */
async function preview(account: ApiAccount, body: { url: string; load_mode: string; steps?: unknown[] }): Promise<string> {
  const res = await send(0, 'POST', '/api/v1/previews', account, body);
  const answer = await res.json();
  assert.equal(res.status, 201, JSON.stringify(answer));
  return answer.data.id as string;
}

async function monitorRows(accountId: string) {
  return shared.db.query<{ id: string; url: string; steps: unknown[]; proxy: string | null; config_version: number }>(
    'SELECT id, url, steps, proxy, config_version FROM monitors WHERE account_id = $1 ORDER BY url',
    [accountId],
  );
}

test(
  'parallel browser-mode creations with steps over both API nodes stop exactly at the plan’s monitors: the rest 409, never 500',
  { skip: SKIP },
  async () => {
    const account = await createAccount();
    const urls = STEP_LISTS.map((_, n) => pageUrl(`steps-create=${n}`));
    const previews: string[] = [];
    for (const [n, steps] of STEP_LISTS.entries()) previews.push(await preview(account, { url: urls[n]!, load_mode: 'browser', steps }));
    const responses = await createAtOnce(
      account,
      (i) => ({ preview_id: previews[i % 3], targets: [TITLE], steps: STEP_LISTS[i % 3], interval_minutes: 60 }),
      'steps-create',
    );
    const rows = await monitorRows(account.accountId);
    assert.equal(rows.length, MONITORS);
    // A request for a URL that has its monitor is 409 monitor_exists, one for the URL left out 409 allowance_exhausted.
    const created = new Set(rows.map((r) => r.url));
    const forCreated = Array.from({ length: PARALLEL }, (_, i) => i % 3).filter((n) => created.has(urls[n]!)).length;
    assert.deepEqual(await statusCounts(responses), {
      201: MONITORS,
      '409 monitor_exists': forCreated - MONITORS,
      '409 allowance_exhausted': PARALLEL - forCreated,
    });
    for (const row of rows) assert.deepEqual(row.steps, STEP_LISTS[urls.indexOf(row.url)], 'each monitor has its own preview’s steps');
  },
);

test(
  'parallel step changes of one monitor over both API nodes: one 200, the rest 409 version_conflict, and the monitor has exactly the winner’s steps',
  { skip: SKIP },
  async () => {
    const account = await createAccount();
    const url = pageUrl('steps-change');
    const first = await preview(account, { url, load_mode: 'browser', steps: [{ action: 'wait', ms: 3 }] });
    const created = await send(
      0,
      'POST',
      '/api/v1/monitors',
      account,
      { preview_id: first, targets: [TITLE], steps: [{ action: 'wait', ms: 3 }], interval_minutes: 60 },
      'steps-change',
    );
    assert.equal(created.status, 201);
    const monitorId = (await created.json()).data.id as string;
    const previews: string[] = [];
    for (const steps of STEP_LISTS) previews.push(await preview(account, { url, load_mode: 'browser', steps }));
    const responses = await Promise.all(
      Array.from({ length: PARALLEL }, (_, i) =>
        send(i, 'PATCH', `/api/v1/monitors/${monitorId}`, account, {
          preview_id: previews[i % 3],
          steps: STEP_LISTS[i % 3],
          expected_version: 1,
        }),
      ),
    );
    const winner = responses.findIndex((r) => r.status === 200);
    assert.deepEqual(await statusCounts(responses), { 200: 1, '409 version_conflict': PARALLEL - 1 });
    const [row] = await monitorRows(account.accountId);
    assert.deepEqual(row!.steps, STEP_LISTS[winner % 3]);
    assert.equal(row!.config_version, 2);
  },
);

test(
  'parallel proxy changes of one monitor over both API nodes, names and null alternating: all 200, and the monitor has one of them',
  { skip: SKIP },
  async () => {
    const account = await createAccount();
    const previewId = await preview(account, { url: pageUrl('proxy-change'), load_mode: 'html' });
    const created = await send(
      0,
      'POST',
      '/api/v1/monitors',
      account,
      { preview_id: previewId, targets: [TITLE], interval_minutes: 60 },
      'proxy-change',
    );
    assert.equal(created.status, 201);
    const monitorId = (await created.json()).data.id as string;
    const sent = ['corp', null, 'socks'];
    const responses = await Promise.all(
      Array.from({ length: PARALLEL }, (_, i) => send(i, 'PATCH', `/api/v1/monitors/${monitorId}`, account, { proxy: sent[i % 3] })),
    );
    assert.deepEqual(await statusCounts(responses), { 200: PARALLEL });
    const [row] = await monitorRows(account.accountId);
    assert.ok(sent.includes(row!.proxy), `proxy ${row!.proxy}`);
    assert.equal(row!.config_version, 1, 'a proxy changes only the route, not the configuration');
  },
);

test(
  'parallel creations naming a proxy on a plan without proxies over both API nodes: all 422 proxy_not_allowed, no monitor',
  { skip: SKIP },
  async () => {
    const account = await createAccount('free');
    const previewId = await preview(account, { url: pageUrl('proxy-refused'), load_mode: 'html' });
    const responses = await createAtOnce(
      account,
      (i) => ({ preview_id: previewId, targets: [TITLE], interval_minutes: 60, proxy: i % 2 ? 'corp' : 'socks' }),
      'proxy-refused',
    );
    assert.deepEqual(await statusCounts(responses), { '422 proxy_not_allowed': PARALLEL });
    assert.equal((await monitorRows(account.accountId)).length, 0);
  },
);

/** An export file (the JSON `pagewatch export` writes) of `count` monitors of distinct pages. */
function exportFile(count: number): string {
  const monitor = { load_mode: 'html', name: null, labels: [], interval_minutes: 60, targets: [TITLE], status: 'active' };
  return JSON.stringify({
    format: 'pagewatch-monitors',
    version: 1,
    exported_at: '2026-11-27T00:00:00Z',
    monitors: Array.from({ length: count }, (_, n) => ({ ...monitor, url: pageUrl(`import=${n}`) })),
  });
}

test(
  'two imports of one export at once on the Import page of both nodes create each URL once and stop exactly at the plan’s monitors',
  { skip: SKIP },
  async () => {
    const account = await createAccount();
    await setOwnerPasswordOn(node(0), account.accountId);
    const sessions = await Promise.all([0, 1].map((n) => signedInOn(node(n), account.email)));
    const file = exportFile(5);
    await Promise.all(sessions.map((session, n) => session.get(node(n), '/monitors/import')));
    const results = await Promise.all(
      sessions.map((session, n) => session.upload(node(n), '/monitors/import', { field: 'file', filename: `n${n}.json`, content: file })),
    );
    for (const result of results) assert.equal(result.status, 200, result.body.slice(0, 2000));
    const bodies = results.map((r) => r.body);
    const created = (body: string) => Number(/<strong>(\d+) created<\/strong>/.exec(body)?.[1]);
    assert.equal(created(bodies[0]!) + created(bodies[1]!), MONITORS, bodies.join('\n'));
    // What one import created is skipped or refused by the other with its code, and past the limit refused: never a 500.
    const refusals = bodies.flatMap((body) => [...body.matchAll(/<strong>not created<\/strong>, (\d{3} \w+):/g)].map((m) => m[1]));
    assert.deepEqual(
      refusals.filter((r) => r !== '409 monitor_exists' && r !== '409 allowance_exhausted'),
      [],
      bodies.join('\n'),
    );
    const urls = (await monitorRows(account.accountId)).map((r) => r.url);
    assert.equal(urls.length, MONITORS);
    assert.equal(new Set(urls).size, urls.length, 'no URL twice');
  },
);
