import { performance } from 'node:perf_hooks';
import { benchEngine, benchLoaders, PRODUCTION_TICK_SECONDS } from './lib/engine.ts';
import { waitFor } from './lib/measure.ts';
import { portsForConcurrency, startPageServer } from './lib/page-server.ts';
import { PRODUCT_TARGETS } from './lib/pages.ts';
import { fmt, publish, table, type Cell } from './lib/report.ts';
import { createAccount, insertMonitors } from './lib/seed.ts';
import { settleMonitors } from './lib/settled-monitors.ts';
import type { Database } from '../src/store/database.ts';
import type { Loaders } from '../src/fetch/loaders.ts';
import { meterServerCpu, type ServerCpu } from './lib/server-cpu.ts';
import { openBenchStore, postgresAvailable, STORE_LABELS, type BenchStore, type StoreKind } from './lib/stores.ts';

// Issue #41: what a conditional request saves. A store of html monitors of
// ~100 KB product pages, half of them on a server that sends an ETag and
// answers a conditional request with 304 (no body; the check skips parsing
// and extraction), half on a server that sends no validators (200: the page
// is fetched, parsed and its three targets extracted). Every monitor is
// settled as its first capture would have left it (bench/lib/settled-monitors.ts:
// baselines, texts, and the stored validators of the pages that send them),
// so every measured check is an unchanged page. A sample of each half then
// falls due at once and the production engine checks it: checks/s and CPU per
// check, the two halves in turns. CPU is the benchmark process's (engine,
// loaders, extraction threads, and on PGlite the store's thread) plus, on
// PostgreSQL, the server backends' that serve its connections.
//
//   BENCH_CONDITIONAL_MONITORS     monitors stored, half of each server (default 2000; the 100000)
//   BENCH_CONDITIONAL_DUE          checks of a measured pass, a sample of one half (default 1000)
//   BENCH_CONDITIONAL_CONCURRENCY  checks at once (default 8)
//   BENCH_CONDITIONAL_ROUNDS       rounds of both passes in turn, each on a fresh sample; the median counts (default 3)
//   BENCH_CONDITIONAL_LIMIT_S      longest measured pass (default 100)

const MONITORS = Number(process.env.BENCH_CONDITIONAL_MONITORS ?? 2000);
const DUE = Number(process.env.BENCH_CONDITIONAL_DUE ?? 1000);
const CONCURRENCY = Number(process.env.BENCH_CONDITIONAL_CONCURRENCY ?? 8);
const ROUNDS = Number(process.env.BENCH_CONDITIONAL_ROUNDS ?? 3);
const LIMIT_MS = Number(process.env.BENCH_CONDITIONAL_LIMIT_S ?? 100) * 1000;
// Production's cycle: it only decides when an idle engine looks again (the engine claims again whenever a slot frees).
const TICK_SECONDS = PRODUCTION_TICK_SECONDS;
// Distinct pages: the fixture site holds each page it served in memory, so monitors share 1,000 pages by a query string.
const PAGES = 1000;
if (!(DUE >= 1 && DUE <= MONITORS / 2)) throw new Error('BENCH_CONDITIONAL_DUE must be between 1 and half of BENCH_CONDITIONAL_MONITORS');

type Kind = 'full' | 'not_modified';

interface Pass {
  checksPerSecond: number;
  processCpuMsPerCheck: number;
  /** null on an embedded store, whose work is in the process */
  serverCpu: (ServerCpu & { msPerCheck: number }) | null;
  outcomes: Record<string, number>;
}

const server = await startPageServer({ ports: portsForConcurrency(CONCURRENCY) });

const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

/** Stores the monitors, settled, none of them due; returns each half's ids. */
async function seed(db: Database): Promise<Record<Kind, string[]>> {
  const half = MONITORS / 2;
  const monitors = Array.from({ length: MONITORS }, (_, i) => {
    const kind: Kind = i < half ? 'full' : 'not_modified';
    const n = i % PAGES;
    const path = `/${kind === 'full' ? 'product' : 'validated'}/${n}.html`;
    return {
      kind,
      n,
      url: `${server.bases[i % server.bases.length]}${path}?monitor=${i}`,
      // What the validating server sends (bench/lib/page-server-process.ts): its path as a strong ETag.
      validators: kind === 'full' ? null : { etag: `"${path}"`, lastModified: null },
    };
  });
  const ids = await insertMonitors(db, {
    accountId: await createAccount(db),
    loadMode: 'html',
    intervalMinutes: 60,
    targets: PRODUCT_TARGETS,
    monitors: monitors.map((m) => ({ url: m.url, nextCheckAt: new Date(Date.now() + 86_400_000) })),
  });
  await settleMonitors(
    db,
    monitors.map((m, i) => ({ ...m, id: ids[i]! })),
    PRODUCT_TARGETS,
  );
  return { full: ids.slice(0, half), not_modified: ids.slice(half) };
}

/** Makes `sample` due now and measures one pass of the engine over it. */
async function pass(bench: BenchStore, loaders: Loaders, sample: string[]): Promise<Pass> {
  const { db } = bench;
  // Never checked before, as settled: the claim's rule for monitors found overdue after a check does not apply to a pass that takes minutes.
  await db.query('UPDATE check_state SET next_check_at = $2, last_checked_at = NULL WHERE monitor_id = ANY($1::uuid[])', [
    sample,
    new Date(Date.now() - 1000),
  ]);
  const since = new Date();
  const engine = benchEngine(db, loaders, CONCURRENCY, TICK_SECONDS);
  const serverMeter = bench.serverPids ? await meterServerCpu(bench.serverPids) : null;
  const cpuBefore = cpuMs();
  const started = performance.now();
  engine.start();
  await waitFor(async () => (await engine.recorded()) >= sample.length, LIMIT_MS, 20);
  const done = await engine.recorded();
  const seconds = (performance.now() - started) / 1000;
  const cpu = cpuMs() - cpuBefore;
  const serverCpu = await serverMeter?.stop();
  await engine.stop();
  const rows = await db.query<{ outcome: string; n: number }>(
    'SELECT outcome, count(*)::int AS n FROM check_runs WHERE checked_at >= $1 GROUP BY outcome',
    [since],
  );
  return {
    checksPerSecond: done / seconds,
    processCpuMsPerCheck: cpu / Math.max(1, done),
    serverCpu: serverCpu ? { ...serverCpu, msPerCheck: serverCpu.ms / Math.max(1, done) } : null,
    outcomes: Object.fromEntries(rows.map((r) => [r.outcome, r.n])),
  };
}

/** Round r's sample of a half: the next DUE monitors, wrapping around. */
const sampleOf = (ids: string[], round: number) => Array.from({ length: DUE }, (_, i) => ids[(round * DUE + i) % ids.length]!);

async function measure(store: StoreKind): Promise<Record<Kind, Pass[]>> {
  const bench = await openBenchStore(store);
  const loaders = benchLoaders();
  try {
    const seedStarted = performance.now();
    const ids = await seed(bench.db);
    console.error(`${STORE_LABELS[store]}: ${MONITORS} monitors stored and settled in ${fmt((performance.now() - seedStarted) / 1000)} s`);
    const passes: Record<Kind, Pass[]> = { full: [], not_modified: [] };
    // In turns, so that both see the same moments of the shared machine; the median round counts.
    for (let round = 0; round < ROUNDS; round++) {
      for (const kind of ['full', 'not_modified'] as const) passes[kind].push(await pass(bench, loaders, sampleOf(ids[kind], round)));
    }
    return passes;
  } finally {
    await loaders.close();
    await bench.close();
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

try {
  const stores: StoreKind[] = (await postgresAvailable()) ? ['pglite', 'postgres'] : ['pglite'];
  const rows: Cell[][] = [];
  for (const store of stores) {
    const passes = await measure(store);
    const totalCpu = (p: Pass) => p.processCpuMsPerCheck + (p.serverCpu?.msPerCheck ?? 0);
    const fullCpu = median(passes.full.map(totalCpu));
    const fullRate = median(passes.full.map((p) => p.checksPerSecond));
    for (const kind of ['full', 'not_modified'] as const) {
      const cpu = median(passes[kind].map(totalCpu));
      const rate = median(passes[kind].map((p) => p.checksPerSecond));
      const perRound = (describe: (p: Pass) => string) => passes[kind].map(describe).join(' / ');
      rows.push([
        `${STORE_LABELS[store]}: ${kind === 'full' ? 'server without validators, 200 (baseline)' : 'server answers 304'}`,
        fmt(rate),
        `${fmt(rate / fullRate, 2)}×`,
        fmt(median(passes[kind].map((p) => p.processCpuMsPerCheck)), 2),
        store === 'postgres' ? fmt(median(passes[kind].map((p) => p.serverCpu!.msPerCheck)), 2) : '—',
        fmt(cpu, 2),
        `${fmt(cpu / fullCpu, 2)}×`,
        store === 'postgres' ? perRound((p) => `${p.serverCpu!.processes} (${p.serverCpu!.ended})`) : '—',
        perRound((p) =>
          Object.entries(p.outcomes)
            .map(([outcome, n]) => `${n} ${outcome}`)
            .join(', '),
        ),
      ]);
    }
  }
  publish(
    'conditional-checks',
    `## Conditional requests (issue #41)

${MONITORS} stored html monitors of ~100 KB product pages with 3 targets (title text, price, availability), half of them on a server
that sends an ETag and answers a conditional request with 304, half on one that sends no validators (the baseline: each check
fetches, parses and extracts the page and finds no change); ${PAGES} distinct pages, fixture site in a child process on
${server.bases.length} loopback ports. Every monitor is stored as its first capture would have left it, written in bulk
(bench/lib/settled-monitors.ts: baselines and texts decided by the product's extraction, and the stored ETag of the pages that
send one), untimed. A pass makes ${DUE} monitors of one half due at once and the production engine checks them, ${CONCURRENCY} at
once, with production's ${TICK_SECONDS} s cycle (it claims again whenever a slot frees): checks/s over the time from the
engine's start until all are recorded, and CPU per check: the benchmark process's (engine, loaders, extraction threads; on
PGlite also the store's thread) and, on PostgreSQL, the server's: the backends serving the benchmark's own connections
(told apart from other sessions' by their application_name in pg_stat_activity), their utime + stime from /proc sampled
every second, a backend there at the start counted from then, one that appears later from zero. A backend that ends during
a pass (the pool closes a connection idle for 10 s) loses its CPU after its last sample; the table gives, per round, the
backends seen and (in brackets) those that ended. The server's shared processes (WAL writer, checkpointer, autovacuum) are
not counted: other sessions use them too. The CPU ratio is on the sum of process and server. The sampled monitors look
never checked, so the claim's rule for monitors found overdue after a check does not move any of a pass that takes minutes. Both halves take turns for ${ROUNDS} round(s) per store, each round
on a fresh sample; each column shows the median of the rounds.

${table(
  [
    'what',
    'checks/s',
    'ratio to baseline',
    'process CPU ms per check',
    'server CPU ms per check',
    'CPU ms per check (sum)',
    'CPU ratio to baseline (sum)',
    'server backends (ended), per round',
    'outcomes, per round',
  ],
  rows,
)}

Re-run: \`node bin/run-ts.js bench/conditional-checks.bench.ts\` (BENCH_CONDITIONAL_MONITORS, BENCH_CONDITIONAL_DUE,
BENCH_CONDITIONAL_CONCURRENCY, BENCH_CONDITIONAL_ROUNDS, BENCH_CONDITIONAL_LIMIT_S).`,
  );
} finally {
  await server.close();
}
