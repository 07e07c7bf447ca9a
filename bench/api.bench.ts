import type { AddressInfo } from 'node:net';
import autocannon from 'autocannon';
import Fastify, { type FastifyInstance } from 'fastify';
import { buildApp } from '../src/http/app.ts';
import { systemClock } from '../src/clock.ts';
import { loadConfig } from '../src/config.ts';
import { createLoaders } from '../src/fetch/loaders.ts';
import { createMetrics } from '../src/process-metrics.ts';
import { ADMIN_TOKEN, createAccountWithToken } from '../test/helpers/test-app.ts';
import { PRODUCT_TARGETS } from './lib/pages.ts';
import { benchPlans } from './lib/plans.ts';
import { fmt, publish, ratio, table, type Cell } from './lib/report.ts';
import { insertMonitors } from './lib/seed.ts';
import { openBenchStore, postgresAvailable, STORE_LABELS, type StoreKind } from './lib/stores.ts';

// Item 1: authenticated GET /api/v1/monitors/{id} (token check, rate limits,
// read-bytes accounting, the monitor query, schema serialisation) against a
// bare Fastify route answering the same JSON, with autocannon at 50
// connections in a worker thread, so the load generator has its own event loop.
//
//   BENCH_API_SECONDS      duration of each autocannon run (default 10)
//   BENCH_API_CONNECTIONS  connections (default 50)

const SECONDS = Number(process.env.BENCH_API_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_API_CONNECTIONS ?? 50);

interface Figures {
  rps: number;
  p50: number;
  p99: number;
  ok: number;
  failed: number;
}

async function load(url: string, headers: Record<string, string>): Promise<Figures> {
  const result = await autocannon({ url, connections: CONNECTIONS, duration: SECONDS, headers, workers: 1 });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    ok: result['2xx'],
    failed: result.non2xx + result.errors + result.timeouts,
  };
}

async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

/** pagewatch on one store: the figures and the body it answered. */
async function pagewatch(kind: StoreKind): Promise<{ figures: Figures; body: string; contentType: string }> {
  const store = await openBenchStore(kind);
  const config = {
    ...loadConfig({ PAGEWATCH_ADMIN_TOKEN: ADMIN_TOKEN, LOG_LEVEL: 'silent', PAGEWATCH_ALLOW_PRIVATE_NETWORKS: '127.0.0.0/8' }),
    plans: benchPlans(),
  };
  const loaders = createLoaders(config);
  const app = await buildApp({ config, db: store.db, clock: systemClock, loaders, metrics: createMetrics() });
  try {
    const { accountId, token } = await createAccountWithToken(app);
    const [id] = await insertMonitors(store.db, {
      accountId, loadMode: 'html', intervalMinutes: 60, targets: PRODUCT_TARGETS,
      monitors: [{ url: 'https://shop.example/product/1.html', nextCheckAt: new Date(Date.now() + 3_600_000) }],
    });
    const base = await listen(app);
    const headers = { authorization: `Bearer ${token}` };
    const probe = await fetch(`${base}/api/v1/monitors/${id}`, { headers });
    if (probe.status !== 200) throw new Error(`GET /monitors/{id} answered ${probe.status}: ${await probe.text()}`);
    const body = await probe.text();
    return { figures: await load(`${base}/api/v1/monitors/${id}`, headers), body, contentType: probe.headers.get('content-type') ?? 'application/json' };
  } finally {
    await app.close();
    await loaders.close();
    await store.close();
  }
}

/** A bare Fastify route answering `body` as it is. */
async function bare(body: string, contentType: string): Promise<Figures> {
  const app = Fastify({ logger: false });
  app.get('/monitors/:id', async (_request, reply) => reply.type(contentType).send(body));
  try {
    return await load(`${await listen(app)}/monitors/1`, {});
  } finally {
    await app.close();
  }
}

const kinds: StoreKind[] = (await postgresAvailable()) ? ['pglite', 'postgres'] : ['pglite'];
const results: { kind: StoreKind; figures: Figures }[] = [];
let sample: { body: string; contentType: string } | null = null;
for (const kind of kinds) {
  const run = await pagewatch(kind);
  sample ??= run;
  results.push({ kind, figures: run.figures });
}
const baseline = await bare(sample!.body, sample!.contentType);
const row = (what: string, f: Figures): Cell[] => [
  what, fmt(f.rps, 0), ratio(f.rps, baseline.rps), fmt(f.p50, 0), fmt(f.p99, 0), ratio(f.p99, baseline.p99), f.ok, f.failed,
];
publish(
  'api',
  `## 1. API: GET /api/v1/monitors/{id}

autocannon, ${CONNECTIONS} connections, ${SECONDS} s per run, in a worker thread of the benchmark process; the server in the main
thread. The body is ${sample!.body.length} bytes of JSON (a monitor with 3 targets); the baseline route answers the same bytes.
Rate limits raised through the plans (bench/lib/plans.ts).

${table(
  ['server', 'req/s', 'req/s ratio', 'p50 ms', 'p99 ms', 'p99 ratio', '2xx', 'failed'],
  [row('bare Fastify route (baseline)', baseline), ...results.map((r) => row(`pagewatch, ${STORE_LABELS[r.kind]}`, r.figures))],
)}

Re-run: \`node bin/run-ts.js bench/api.bench.ts\` (BENCH_API_SECONDS, BENCH_API_CONNECTIONS, BENCH_DATABASE_URL).`,
);
