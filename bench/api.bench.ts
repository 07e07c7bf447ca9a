import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import Fastify, { type FastifyInstance } from 'fastify';
import { buildApp } from '../src/http/app.ts';
import { systemClock } from '../src/clock.ts';
import { loadConfig } from '../src/config.ts';
import { createLoaders } from '../src/fetch/loaders.ts';
import { createMetrics } from '../src/process-metrics.ts';
import type { Database } from '../src/store/database.ts';
import { createAccountWithToken } from '../test/helpers/test-app.ts';
import { ADMIN_TOKEN } from '../test/helpers/test-credentials.ts';
import { PRODUCT_TARGETS } from './lib/pages.ts';
import { benchPlans } from './lib/plans.ts';
import { fmt, publish, ratio, table, type Cell } from './lib/report.ts';
import { insertMonitors } from './lib/seed.ts';
import { openBenchStore, postgresAvailable, STORE_LABELS, type StoreKind } from './lib/stores.ts';

// Item 1: authenticated GET /api/v1/monitors/{id} (token check, rate limits,
// read-bytes accounting, the monitor query, schema serialisation) against two
// baselines measured in the same run, on the same store:
//   (a) a bare Fastify route answering the same bytes;
//   (b) a Fastify route that reads the same monitor row with one SELECT from
//       the same store and serialises it: the floor any stored read costs.
// Two load shapes: one account, and BENCH_API_ACCOUNTS accounts with their own
// tokens and monitors, round-robin (bench/lib/round-robin-client.cjs). Rate
// limits are raised through the plans in both. autocannon runs in a worker
// thread, so the load generator has its own event loop; the servers share the
// main thread. Each server gets a one-second warm-up first, not counted.
//
//   BENCH_API_SECONDS      duration of each autocannon run (default 10)
//   BENCH_API_CONNECTIONS  connections (default 50)
//   BENCH_API_ACCOUNTS     accounts of the round-robin shape (default 200)
//   BENCH_API_STORES       stores to measure, comma-separated (default: pglite-loop,pglite,postgres when reachable)

const SECONDS = Number(process.env.BENCH_API_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_API_CONNECTIONS ?? 50);
const ACCOUNTS = Number(process.env.BENCH_API_ACCOUNTS ?? 200);
const ROUND_ROBIN_CLIENT = fileURLToPath(new URL('./lib/round-robin-client.cjs', import.meta.url));

interface Figures {
  rps: number;
  p50: number;
  p99: number;
  ok: number;
  non2xx: number;
  errors: number;
}

/** One request of a load: the path and the caller's headers. */
interface Call {
  path: string;
  headers: Record<string, string>;
}

async function load(base: string, calls: Call[], seconds = SECONDS): Promise<Figures> {
  const result = await autocannon({
    url: base,
    connections: CONNECTIONS,
    duration: seconds,
    workers: 1,
    requests: calls.map((c) => ({ method: 'GET', path: c.path, headers: c.headers })),
    setupClient: ROUND_ROBIN_CLIENT,
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    ok: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}

async function measure(base: string, calls: Call[]): Promise<Figures> {
  await load(base, calls, 1);
  return load(base, calls);
}

async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

/** Baseline (a): answers `body` as it is, whatever the path. */
async function bare(body: string, contentType: string): Promise<FastifyInstance> {
  const app = Fastify({ logger: false });
  app.get('/api/v1/monitors/:id', async (_request, reply) => reply.type(contentType).send(body));
  return app;
}

/** Baseline (b): one SELECT of the monitor row from the store, serialised as JSON. */
async function storedRead(db: Database): Promise<FastifyInstance> {
  const app = Fastify({ logger: false });
  app.get<{ Params: { id: string } }>('/api/v1/monitors/:id', async (request, reply) => {
    const rows = await db.query('SELECT * FROM monitors WHERE id = $1', [request.params.id]);
    if (rows.length === 0) return reply.status(404).send({ error: 'not found' });
    return { data: rows[0] };
  });
  return app;
}

async function withServer<T>(app: FastifyInstance, run: (base: string) => Promise<T>): Promise<T> {
  try {
    return await run(await listen(app));
  } finally {
    await app.close();
  }
}

interface ShapeResult {
  shape: string;
  kind: StoreKind;
  bare: Figures;
  storedRead: Figures;
  pagewatch: Figures;
}

/** Every shape on one store: pagewatch and both baselines, one after the other. */
async function onStore(kind: StoreKind): Promise<{ results: ShapeResult[]; body: string }> {
  const store = await openBenchStore(kind);
  const config = {
    ...loadConfig({ PAGEWATCH_ADMIN_TOKEN: ADMIN_TOKEN, LOG_LEVEL: 'silent', PAGEWATCH_ALLOW_PRIVATE_NETWORKS: '127.0.0.0/8' }),
    plans: benchPlans(),
  };
  const loaders = createLoaders(config);
  const app = await buildApp({ config, db: store.db, clock: systemClock, loaders, metrics: createMetrics() });
  try {
    const calls: Call[] = [];
    for (let i = 0; i < ACCOUNTS; i++) {
      const { accountId, token } = await createAccountWithToken(app);
      const [id] = await insertMonitors(store.db, {
        accountId,
        loadMode: 'html',
        intervalMinutes: 60,
        targets: PRODUCT_TARGETS,
        monitors: [{ url: `https://shop.example/product/${i + 1}.html`, nextCheckAt: new Date(Date.now() + 3_600_000) }],
      });
      calls.push({ path: `/api/v1/monitors/${id}`, headers: { authorization: `Bearer ${token}` } });
    }
    const pagewatchBase = await listen(app);
    const probe = await fetch(`${pagewatchBase}${calls[0]!.path}`, { headers: calls[0]!.headers });
    if (probe.status !== 200) throw new Error(`GET /monitors/{id} answered ${probe.status}: ${await probe.text()}`);
    const body = await probe.text();
    const contentType = probe.headers.get('content-type') ?? 'application/json';
    const results: ShapeResult[] = [];
    for (const [shape, shapeCalls] of [
      ['one account', calls.slice(0, 1)],
      [`${ACCOUNTS} accounts`, calls],
    ] as const) {
      const bareFigures = await withServer(await bare(body, contentType), (base) => measure(base, shapeCalls));
      const readFigures = await withServer(await storedRead(store.db), (base) => measure(base, shapeCalls));
      results.push({ shape, kind, bare: bareFigures, storedRead: readFigures, pagewatch: await measure(pagewatchBase, shapeCalls) });
    }
    return { results, body };
  } finally {
    await app.close();
    await loaders.close();
    await store.close();
  }
}

const requested = process.env.BENCH_API_STORES?.split(',').map((s) => s.trim()) as StoreKind[] | undefined;
const kinds: StoreKind[] = requested ?? ['pglite-loop', 'pglite', ...((await postgresAvailable()) ? ['postgres' as const] : [])];
const results: ShapeResult[] = [];
let body = '';
for (const kind of kinds) {
  const run = await onStore(kind);
  body ||= run.body;
  results.push(...run.results);
}

const row = (r: ShapeResult, what: string, f: Figures): Cell[] => [
  r.shape,
  STORE_LABELS[r.kind],
  what,
  fmt(f.rps, 0),
  ratio(f.rps, r.bare.rps),
  ratio(f.rps, r.storedRead.rps),
  fmt(f.p50, 0),
  fmt(f.p99, 0),
  f.ok,
  f.non2xx,
  f.errors,
];
publish(
  'api',
  `## 1. API: GET /api/v1/monitors/{id}

autocannon, ${CONNECTIONS} connections, ${SECONDS} s per run (after a 1 s warm-up), in a worker thread of the benchmark process;
the servers in the main thread. The body is ${body.length} bytes of JSON (a monitor with 3 targets). Baselines, measured in the
same run on the same store just before pagewatch: (a) a bare Fastify route answering the same bytes; (b) a Fastify route that
reads the monitor row with one SELECT from the same store and serialises it. Shapes: one account, and ${ACCOUNTS} accounts with
their own tokens and monitors, round-robin (each connection from its own starting point). Rate limits raised through the
plans (bench/lib/plans.ts). Targets (issue #13): pagewatch ≥ 0.70× of (b) and ≥ 0.40× of (a) on PGlite, ≥ 0.20× of (a) on
PostgreSQL, p99 ≤ 20 ms, no non-2xx.

${table(
  ['shape', 'store', 'server', 'req/s', 'vs (a)', 'vs (b)', 'p50 ms', 'p99 ms', '2xx', 'non-2xx', 'errors'],
  results.flatMap((r) => [
    row(r, '(a) bare Fastify route', r.bare),
    row(r, '(b) one SELECT, serialised', r.storedRead),
    row(r, '**pagewatch**', r.pagewatch),
  ]),
)}

Re-run: \`node bin/run-ts.js bench/api.bench.ts\` (BENCH_API_SECONDS, BENCH_API_CONNECTIONS, BENCH_API_ACCOUNTS, BENCH_API_STORES,
BENCH_DATABASE_URL).`,
);
