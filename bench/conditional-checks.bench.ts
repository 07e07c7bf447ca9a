import { performance } from 'node:perf_hooks';
import { rescheduleMonitors } from '../src/store/monitor-checks-store.ts';
import { benchEngine, benchLoaders, PRODUCTION_TICK_SECONDS } from './lib/engine.ts';
import { waitFor } from './lib/measure.ts';
import { portsForConcurrency, startPageServer } from './lib/page-server.ts';
import { PRODUCT_TARGETS } from './lib/pages.ts';
import { fmt, publish, table, type Cell } from './lib/report.ts';
import { createAccount, insertMonitors } from './lib/seed.ts';
import { openBenchStore, postgresAvailable, STORE_LABELS, type StoreKind } from './lib/stores.ts';

// Issue #41: what a conditional request saves. Monitors of ~100 KB product
// pages that did not change since their previous check, checked once more by
// the production engine: pages whose server answers the conditional request
// with 304 (no body; the check skips parsing and extraction) against the
// baseline of the same pages from a server that sends no validators (200, the
// page is fetched, parsed and its three targets extracted, no change).
// Checks/s and CPU per check of the benchmark process (engine, loaders,
// extraction threads, and on PGlite the store's thread) are measured in the
// same run, in turns.
//
//   BENCH_CONDITIONAL_MONITORS     monitors per run (default 1000; the 100,000 takes hours on this machine)
//   BENCH_CONDITIONAL_CONCURRENCY  checks at once (default 8)
//   BENCH_CONDITIONAL_ROUNDS       rounds of both runs in turn; the median counts (default 3)
//   BENCH_CONDITIONAL_LIMIT_S      longest measured pass (default 100)

const MONITORS = Number(process.env.BENCH_CONDITIONAL_MONITORS ?? 1000);
const CONCURRENCY = Number(process.env.BENCH_CONDITIONAL_CONCURRENCY ?? 8);
const ROUNDS = Number(process.env.BENCH_CONDITIONAL_ROUNDS ?? 3);
const LIMIT_MS = Number(process.env.BENCH_CONDITIONAL_LIMIT_S ?? 100) * 1000;
// Production's cycle: a monitor found more than two cycles late after a capture is moved to its next slot
// instead of checked (claim-work.ts), which a 1 s cycle would do to most of a pass of this size.
const TICK_SECONDS = PRODUCTION_TICK_SECONDS;

type Kind = 'full' | 'not_modified';

interface Pass {
  checksPerSecond: number;
  cpuMsPerCheck: number;
  outcomes: Record<string, number>;
}

const server = await startPageServer({ ports: portsForConcurrency(CONCURRENCY) });

const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

/** Seeds the monitors with a first capture, then measures one pass of unchanged checks. */
async function run(store: StoreKind, kind: Kind): Promise<Pass> {
  const bench = await openBenchStore(store);
  const loaders = benchLoaders();
  try {
    const route = kind === 'full' ? 'product' : 'validated';
    const urls = Array.from({ length: MONITORS }, (_, n) => `${server.bases[n % server.bases.length]}/${route}/${n}.html`);
    const ids = await insertMonitors(bench.db, {
      accountId: await createAccount(bench.db),
      loadMode: 'html',
      intervalMinutes: 60,
      targets: PRODUCT_TARGETS,
      monitors: urls.map((url) => ({ url, nextCheckAt: new Date(Date.now() - 1000) })),
    });
    // The first capture of every page, untimed: baselines, and the validators of the pages that send them.
    const seeding = benchEngine(bench.db, loaders, CONCURRENCY, TICK_SECONDS);
    seeding.start();
    await waitFor(async () => (await seeding.recorded()) >= MONITORS, LIMIT_MS * 3, 50);
    await seeding.stop();
    const since = new Date();
    await rescheduleMonitors(
      bench.db,
      ids.map((id) => ({ id, nextCheckAt: new Date(Date.now() - 1000) })),
    );
    const engine = benchEngine(bench.db, loaders, CONCURRENCY, TICK_SECONDS);
    const cpuBefore = cpuMs();
    const started = performance.now();
    engine.start();
    await waitFor(async () => (await engine.recorded()) >= MONITORS, LIMIT_MS, 20);
    const done = await engine.recorded();
    const seconds = (performance.now() - started) / 1000;
    const cpu = cpuMs() - cpuBefore;
    await engine.stop();
    const rows = await bench.db.query<{ outcome: string; n: number }>(
      'SELECT outcome, count(*)::int AS n FROM check_runs WHERE checked_at >= $1 GROUP BY outcome',
      [since],
    );
    return {
      checksPerSecond: done / seconds,
      cpuMsPerCheck: cpu / Math.max(1, done),
      outcomes: Object.fromEntries(rows.map((r) => [r.outcome, r.n])),
    };
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
    const passes: Record<Kind, Pass[]> = { full: [], not_modified: [] };
    // In turns, so that both see the same moments of the shared machine; the median round counts.
    for (let round = 0; round < ROUNDS; round++) {
      for (const kind of ['full', 'not_modified'] as const) passes[kind].push(await run(store, kind));
    }
    const full = passes.full;
    const fullCpu = median(full.map((p) => p.cpuMsPerCheck));
    const fullRate = median(full.map((p) => p.checksPerSecond));
    for (const kind of ['full', 'not_modified'] as const) {
      const cpu = median(passes[kind].map((p) => p.cpuMsPerCheck));
      const rate = median(passes[kind].map((p) => p.checksPerSecond));
      rows.push([
        `${STORE_LABELS[store]}: ${kind === 'full' ? 'server without validators, 200 (baseline)' : 'server answers 304'}`,
        fmt(rate),
        `${fmt(rate / fullRate, 2)}×`,
        fmt(cpu, 2),
        `${fmt(cpu / fullCpu, 2)}×`,
        passes[kind]
          .map((p) =>
            Object.entries(p.outcomes)
              .map(([outcome, n]) => `${n} ${outcome}`)
              .join(', '),
          )
          .join(' / '),
      ]);
    }
  }
  publish(
    'conditional-checks',
    `## Conditional requests (issue #41)

${MONITORS} html monitors of ~100 KB product pages with 3 targets (title text, price, availability), ${CONCURRENCY} checks at once,
the production engine with production's ${TICK_SECONDS} s cycle (it claims again whenever a slot frees), fixture site in a child process
on ${server.bases.length} loopback ports. Every page is captured once, untimed (baselines, and the validators of the pages
that send an ETag); then every monitor falls due at once and one pass of unchanged checks is measured: checks/s over the
time from the engine's start until all are recorded, and CPU per check of the benchmark process (engine, loaders,
extraction threads; on PGlite also the store's thread). The baseline is the same pages from a server that sends no
validators: each check fetches, parses and extracts the page and finds no change. A smaller run than the issue's 100,000
monitors: a pass of 100,000 html checks takes about half an hour per store here, and what a check costs does not depend
on how many others there are. Both runs take turns for ${ROUNDS} round(s) per store; the median round is shown. The
PostgreSQL server's own CPU is not counted (its backends are other processes, shared with other sessions on this machine).

${table(['what', 'checks/s', 'ratio to baseline', 'CPU ms per check', 'CPU ratio to baseline', 'outcomes, per round'], rows)}

Re-run: \`node bin/run-ts.js bench/conditional-checks.bench.ts\` (BENCH_CONDITIONAL_MONITORS, BENCH_CONDITIONAL_CONCURRENCY,
BENCH_CONDITIONAL_ROUNDS, BENCH_CONDITIONAL_LIMIT_S).`,
  );
} finally {
  await server.close();
}
