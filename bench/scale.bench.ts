import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../src/config.ts';
import { sizeYoungGeneration } from '../src/heap-sizing.ts';
import { nextDueAt, stableOffsetSeconds } from '../src/domain/schedule.ts';
import type { Loaders } from '../src/fetch/loaders.ts';
import { rescheduleMonitors } from '../src/store/monitor-checks-store.ts';
import { benchEngine, benchLoaders, TICK_SECONDS } from './lib/engine.ts';
import { collectGarbage, percentile, sleep } from './lib/measure.ts';
import { portsForConcurrency, startPageServer, type PageServer } from './lib/page-server.ts';
import { PRODUCT_TARGETS } from './lib/pages.ts';
import { fmt, mib, publish, ratio, table, type Cell } from './lib/report.ts';
import { benchPlans, writeBenchPlansFile } from './lib/plans.ts';
import { createAccount, insertMonitors } from './lib/seed.ts';
import { startAfterOverrun, ownSlotAfter, ownSlotsAfterRun, runStart } from './lib/own-slots.ts';
import { simulateHistory } from './lib/simulated-hour.ts';
import { measureTakeOver } from './lib/take-over.ts';
import { openBenchStore, postgresAvailable, STORE_LABELS, type StoreKind } from './lib/stores.ts';

// Item 3: 100,000 active html monitors at 5 minutes (≈ 333 checks/s offered)
// on one machine, in real time: sustained checks/s against the offered rate,
// lateness of each check's start against its due time, CPU and peak RSS; then
// an hour of history is simulated in bulk (bench/lib/simulated-hour.ts) and
// the store's size measured.
//
//   BENCH_SCALE_MONITORS     active monitors (default 100000)
//   BENCH_SCALE_MINUTES      real minutes of running per store (default 5, what issue #14 asks for)
//   BENCH_SCALE_INTERVAL     interval_minutes of every monitor (default 5)
//   BENCH_SCALE_CONCURRENCY  checks at once (default 16)
//   BENCH_SCALE_STORES       stores (default pglite,postgres)
//   BENCH_SCALE_SETTLED      0: start from monitors never checked, every check of the
//                            first interval a first capture (default 1: each monitor
//                            captured once before the run, as on a settled service)
//   BENCH_SCALE_SIMULATE     0: skip the simulated hour (default 1)
//   BENCH_SCALE_TAKEOVER     0: skip the run with a worker killed mid-run (default 1; PostgreSQL only)
//   BENCH_SCALE_TAKEOVER_WARMUP_S  seconds both workers run before one is killed (default 60)
//   BENCH_SCALE_TAKEOVER_LATE_S    a due check not recorded this long after its slot is late (default 5)
//   BENCH_SCALE_TAKEOVER_PAGE_MS   how late the take-over run's fixture site answers each page (default: a quarter
//                                  of the two workers' slots loading at the offered rate, 24 ms at 100,000 monitors)
//   BENCH_TICK_SECONDS       scheduler cycle (default 1, see bench/lib/engine.ts)
//   PAGEWATCH_YOUNG_GENERATION  V8's young generation as serve and worker size it (default fixed, heap-sizing.ts)

const MONITORS = Number(process.env.BENCH_SCALE_MONITORS ?? 100_000);
const MINUTES = Number(process.env.BENCH_SCALE_MINUTES ?? 5);
const INTERVAL = Number(process.env.BENCH_SCALE_INTERVAL ?? 5);
const CONCURRENCY = Number(process.env.BENCH_SCALE_CONCURRENCY ?? 16);
const STORES = (process.env.BENCH_SCALE_STORES ?? 'pglite,postgres').split(',') as StoreKind[];
const SIMULATE = process.env.BENCH_SCALE_SIMULATE !== '0';
const SETTLED = process.env.BENCH_SCALE_SETTLED !== '0';
const TAKE_OVER = process.env.BENCH_SCALE_TAKEOVER !== '0';
const TAKE_OVER_WARMUP_S = Number(process.env.BENCH_SCALE_TAKEOVER_WARMUP_S ?? 60);
const TAKE_OVER_LATE_S = Number(process.env.BENCH_SCALE_TAKEOVER_LATE_S ?? 5);
// Pages slow enough that a quarter of the two workers' slots are loading at the offered rate: the killed worker is in the middle of checks.
const TAKE_OVER_PAGE_MS = Number(
  process.env.BENCH_SCALE_TAKEOVER_PAGE_MS ?? Math.round((0.25 * 2 * CONCURRENCY * 1000) / (MONITORS / (INTERVAL * 60))),
);
// The take-over run uses production's lease; the engine's heap is sized as serve and worker size theirs.
const productionConfig = loadConfig({ PAGEWATCH_YOUNG_GENERATION: process.env.PAGEWATCH_YOUNG_GENERATION });
const LEASE_SECONDS = productionConfig.leaseSeconds;
sizeYoungGeneration(productionConfig.youngGeneration);
const START_DELAY_MS = 5_000;
// The fixture site moves each page's price this often (bench/lib/pages.ts).
const CHANGE_SECONDS = 600;
const HOUR_SLOTS = Math.round(60 / INTERVAL);

interface Figures {
  checks: number;
  rate: number;
  p50: number | null;
  p99: number | null;
  cpuPercent: number;
  siteCpuPercent: number;
  peakRss: number;
  seedBytes: number;
  endBytes: number;
  hourBytes: number;
  hourChanges: number;
  simulationSeconds: number;
}

/** The html loader, noting when each check starts against its due time. */
function timedLoaders(inner: Loaders, due: Map<string, { id: string; at: number }>, lateness: number[]): Loaders {
  const html = inner.byMode.html;
  return {
    ...inner,
    byMode: {
      ...inner.byMode,
      html: {
        async load(request) {
          const slot = due.get(request.url);
          const now = Date.now();
          if (slot) {
            lateness.push(now - slot.at);
            // The engine's own next slot after this one (src/domain/schedule.ts).
            slot.at = nextDueAt(new Date(slot.at), INTERVAL, stableOffsetSeconds(slot.id, INTERVAL), new Date(now)).getTime();
          }
          return html.load(request);
        },
        close: () => html.close(),
      },
    },
  };
}

async function run(kind: StoreKind, server: PageServer): Promise<Figures> {
  const store = await openBenchStore(kind);
  const inner = benchLoaders();
  try {
    const accountId = await createAccount(store.db);
    const seeds = Array.from({ length: MONITORS }, (_, n) => ({
      id: randomUUID(),
      n,
      url: `${server.bases[n % server.bases.length]}/small/${n}.html`,
      // Nothing is due until the slots are set below.
      nextCheckAt: new Date(Date.now() + 86_400_000),
    }));
    const ids = await insertMonitors(store.db, {
      accountId,
      loadMode: 'html',
      intervalMinutes: INTERVAL,
      targets: PRODUCT_TARGETS,
      monitors: seeds,
    });
    /** `slots` checks of every monitor written in bulk, one interval apart from its `firstAt`. */
    const simulate = (firstAt: (i: number) => Date, slots: number) =>
      simulateHistory(store.db, {
        accountId,
        plan: benchPlans().pro,
        targets: PRODUCT_TARGETS,
        intervalMinutes: INTERVAL,
        changeSeconds: CHANGE_SECONDS,
        slots,
        monitors: seeds.map((seed, i) => ({ id: ids[i]!, n: seed.n, url: seed.url, host: new URL(seed.url).host, firstAt: firstAt(i) })),
      });
    // Each monitor due at its own next slot (src/domain/schedule.ts), as a settled service has them, and
    // settled seeding's capture at the slot before it.
    const periodMs = INTERVAL * 60_000;
    let start = runStart(MONITORS, SETTLED, START_DELAY_MS);
    for (const seed of seeds) seed.nextCheckAt = ownSlotAfter(seed.id, INTERVAL, start);
    if (SETTLED) await simulate((i) => new Date(seeds[i]!.nextCheckAt.getTime() - periodMs), 1);
    start = startAfterOverrun(start, seeds, INTERVAL, START_DELAY_MS);
    await rescheduleMonitors(store.db, seeds);
    const seedBytes = await store.sizeBytes();
    const due = new Map(seeds.map((seed, i) => [seed.url, { id: ids[i]!, at: seed.nextCheckAt.getTime() }]));
    const lateness: number[] = [];
    // The engine starts as before, the start delay ahead of the first slots, whatever time seeding left.
    await sleep(Math.max(0, start.getTime() - START_DELAY_MS - Date.now()));
    collectGarbage();
    const engine = benchEngine(store.db, timedLoaders(inner, due, lateness), CONCURRENCY);
    let peakRss = 0;
    const cpuBefore = process.cpuUsage();
    const siteBefore = server.cpuMs();
    const started = performance.now();
    engine.start();
    const until = start.getTime() + MINUTES * 60_000;
    while (Date.now() < until) {
      peakRss = Math.max(peakRss, process.memoryUsage().rss);
      await sleep(1000);
    }
    await engine.stop();
    const stopped = new Date();
    const elapsed = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    const sorted = [...lateness].sort((a, b) => a - b);
    const endBytes = await store.sizeBytes();
    const simulationStarted = performance.now();
    if (SIMULATE) {
      const next = await ownSlotsAfterRun(store.db, ids, INTERVAL, stopped);
      await simulate((i) => next.get(ids[i]!)!, HOUR_SLOTS);
    }
    const simulationSeconds = (performance.now() - simulationStarted) / 1000;
    const hourChanges = (await store.db.query<{ n: number }>('SELECT count(*)::int AS n FROM changes'))[0]!.n;
    return {
      checks: lateness.length,
      // Nothing is due before the start.
      rate: lateness.length / ((stopped.getTime() - start.getTime()) / 1000),
      p50: percentile(sorted, 50),
      p99: percentile(sorted, 99),
      cpuPercent: ((cpu.user + cpu.system) / 1000 / (elapsed * 1000)) * 100,
      siteCpuPercent: ((server.cpuMs() - siteBefore) / (elapsed * 1000)) * 100,
      peakRss,
      seedBytes,
      endBytes,
      hourBytes: await store.sizeBytes(),
      hourChanges,
      simulationSeconds,
    };
  } finally {
    await inner.close();
    await store.close();
  }
}

const kinds = (await postgresAvailable()) ? STORES : STORES.filter((k) => k === 'pglite');
// Politeness is per host and port: enough ports that it is not what is measured.
const server = await startPageServer({ ports: portsForConcurrency(CONCURRENCY), changeSeconds: CHANGE_SECONDS });
const offered = MONITORS / (INTERVAL * 60);
try {
  const rows: Cell[][] = [];
  const sizes: Cell[][] = [];
  for (const kind of kinds) {
    const f = await run(kind, server);
    rows.push([
      STORE_LABELS[kind],
      fmt(offered),
      fmt(f.rate),
      ratio(f.rate, offered),
      f.checks,
      f.p50 === null ? 'n/a' : fmt(f.p50 / 1000, 2),
      f.p99 === null ? 'n/a' : fmt(f.p99 / 1000, 2),
      `${fmt(f.cpuPercent, 0)} %`,
      `${fmt(f.siteCpuPercent, 0)} %`,
      mib(f.peakRss),
    ]);
    sizes.push([
      STORE_LABELS[kind],
      mib(f.seedBytes),
      mib(f.endBytes),
      mib(f.hourBytes),
      f.hourChanges.toLocaleString('en-US'),
      `${fmt((f.hourBytes - f.seedBytes) / (MONITORS * HOUR_SLOTS + f.checks), 0)} B`,
      `${fmt(f.simulationSeconds, 0)} s`,
    ]);
  }
  const takeOver: Cell[][] = [];
  if (TAKE_OVER && kinds.includes('postgres')) {
    const plansFile = writeBenchPlansFile();
    try {
      const f = await measureTakeOver({
        monitors: MONITORS,
        intervalMinutes: INTERVAL,
        concurrency: CONCURRENCY,
        tickSeconds: TICK_SECONDS,
        leaseSeconds: LEASE_SECONDS,
        settled: SETTLED,
        changeSeconds: CHANGE_SECONDS,
        warmupSeconds: TAKE_OVER_WARMUP_S,
        lateSeconds: TAKE_OVER_LATE_S,
        // Two workers' leases: enough ports that politeness is not what is measured.
        ports: portsForConcurrency(2 * CONCURRENCY),
        pageDelayMs: TAKE_OVER_PAGE_MS,
        plansFile,
      });
      const bound = LEASE_SECONDS + TICK_SECONDS;
      takeOver.push([
        STORE_LABELS.postgres,
        f.held,
        f.lateBefore,
        f.lateAfter,
        f.held === 0 ? 'n/a (nothing held)' : f.recoverySeconds === null ? 'not within the observation' : fmt(f.recoverySeconds, 1),
        `${bound} s`,
        f.held === 0 ? 'n/a' : ratio(f.recoverySeconds, bound),
      ]);
    } finally {
      rmSync(plansFile, { force: true });
    }
  }
  const takeOverSection =
    takeOver.length === 0
      ? ''
      : `

**A worker killed mid-run** (issue #35): the same monitors, due the same way, shared by two \`pagewatch worker\` processes on
PostgreSQL, pages answered ${TAKE_OVER_PAGE_MS} ms late by a site of their own (as real sites take time, so that a worker has checks under
way at any moment; each worker ${CONCURRENCY} checks at once, \`PAGEWATCH_LEASE_SECONDS=${LEASE_SECONDS}\`, the default); after ${TAKE_OVER_WARMUP_S} s the one that
recorded more checks in the last 5 s is killed (SIGKILL of its process group) and the store sampled every 0.5 s for due checks not recorded ${TAKE_OVER_LATE_S} s after their
slot. The dead worker's claimed and running checks stay late until the survivor takes them over, at most one lease after the
dead worker's last heartbeat plus one cycle: the baseline the measured time is compared with. Checks of the other monitors must
stay on time meanwhile (the survivor alone has room for the offered rate).

${table(['store', 'checks the killed worker held', 'late checks before the kill (most at once)', 'late checks after the kill (most at once)', 'seconds until every due check is on time again', 'lease + one cycle', 'ratio'], takeOver)}`;
  publish(
    'scale',
    `## 3. Scale: ${MONITORS.toLocaleString('en-US')} active html monitors on one machine

**${MONITORS.toLocaleString('en-US')} monitors** at a ${INTERVAL}-minute interval (offered ${fmt(offered)} checks/s), each due at its own
slot as on a settled service, ${
      SETTLED
        ? 'each captured once before the run at its own slot one interval before its first due slot (one capture written in bulk by bench/lib/simulated-hour.ts: baselines and texts in place, so every check of the run is a settled check)'
        : 'never checked before the run (every check of the first interval is a first capture: baselines and texts written)'
    }, run for **${MINUTES} real minutes** per store; ${CONCURRENCY} checks at once, scheduler cycle ${TICK_SECONDS} s, V8's young generation
${productionConfig.youngGeneration === 'fixed' ? 'not grown, as serve and worker run by default' : 'grown by V8 (PAGEWATCH_YOUNG_GENERATION=growing)'};
small pages (the three watched elements, ~0.3 KB) whose price moves every ${CHANGE_SECONDS / 60} minutes, served by a child process on
${server.bases.length} loopback ports. Lateness is the start of each check's load against its due time; a monitor the engine
reaches more than two cycles late is moved to its next slot (src/store/procedures/claim-work.ts), so an engine slower than the offered
rate shows as a sustained rate below it rather than as ever-growing lateness. CPU is the benchmark process (engine, and PGlite
itself when embedded) and the fixture site's process, as a share of one core; PostgreSQL's server processes are not included
(other engineers' tests share that server). Peak RSS is the benchmark process during the run (what seeding left behind is garbage-collected before it);
the PostgreSQL run follows the PGlite run in the same process, so its figure includes what the PGlite run left allocated.

${table(['store', 'offered checks/s', 'sustained checks/s', 'ratio', 'checks', 'lateness p50 s', 'lateness p99 s', 'CPU', 'site CPU', 'peak RSS'], rows)}

Store size (tables and indexes) after seeding, after the real run, and after **an hour of simulated history**: ${HOUR_SLOTS} more
checks of every monitor written in bulk (bench/lib/simulated-hour.ts): what each check records is decided by pagewatch's own
extraction and change detection on the page the fixture site would have served at that time, and written as the engine
writes it: texts, baselines and changes, and each check's claim and commit with the engine's own statements
(bench/lib/bulk-checks.ts: allowance, lease taken and released, check state, history row). Loads, the claims' reads and the
per-batch transactions' WAL are not simulated; dead row versions count in the size until vacuum makes their
space reusable.

${table(['store', 'after seeding', 'after the real run', 'after the simulated hour', 'changes recorded', 'bytes per check', 'simulation time'], sizes)}${takeOverSection}

Re-run: \`node bin/run-ts.js bench/scale.bench.ts\` (BENCH_SCALE_MONITORS, BENCH_SCALE_MINUTES, BENCH_SCALE_INTERVAL,
BENCH_SCALE_CONCURRENCY, BENCH_SCALE_STORES, BENCH_SCALE_SETTLED, BENCH_SCALE_SIMULATE, BENCH_SCALE_TAKEOVER,
BENCH_SCALE_TAKEOVER_WARMUP_S, BENCH_SCALE_TAKEOVER_LATE_S, BENCH_TICK_SECONDS, BENCH_DATABASE_URL, PAGEWATCH_YOUNG_GENERATION).`,
  );
} finally {
  await server.close();
}
