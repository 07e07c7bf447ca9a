import { rmSync } from 'node:fs';
import { cpus } from 'node:os';
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../src/config.ts';
import { spawnPagewatch, stopChild } from './lib/children.ts';
import { TICK_SECONDS } from './lib/engine.ts';
import { machineBusySince, machineCpuTicks, sleep, waitFor } from './lib/measure.ts';
import { portsForConcurrency, startPageServer } from './lib/page-server.ts';
import { PRODUCT_TARGETS } from './lib/pages.ts';
import { writeBenchPlansFile } from './lib/plans.ts';
import { fmt, publish, table, type Cell } from './lib/report.ts';
import { createAccount, countCheckedSince, insertMonitors } from './lib/seed.ts';
import { openBenchStore, postgresAvailable } from './lib/stores.ts';

// Item 5: checks/s of 1, 2 and 4 `pagewatch worker` processes sharing one
// PostgreSQL (a fresh schema per worker count). More monitors are due than
// the workers can finish, so the figure is their sustained rate over a fixed
// window after the first check is recorded (process start excluded); a run
// whose workers checked every monitor before the window closed is reported
// as such, its rate only a lower bound.
//
//   BENCH_SCALEOUT_WORKERS      worker counts (default 1,2,4)
//   BENCH_SCALEOUT_MONITORS     monitors due at the start (default 40000, small pages)
//   BENCH_SCALEOUT_WINDOW_S     measuring window (default 20)
//   BENCH_SCALEOUT_CONCURRENCY  PAGEWATCH_WORKER_CONCURRENCY of each worker (default: the config default, 4)
//   BENCH_TICK_SECONDS          PAGEWATCH_TICK_SECONDS (default 1, see bench/lib/engine.ts)

const defaults = loadConfig({});
const COUNTS = (process.env.BENCH_SCALEOUT_WORKERS ?? '1,2,4').split(',').map(Number);
const MONITORS = Number(process.env.BENCH_SCALEOUT_MONITORS ?? 40_000);
const WINDOW_MS = Number(process.env.BENCH_SCALEOUT_WINDOW_S ?? 20) * 1000;
const CONCURRENCY = Number(process.env.BENCH_SCALEOUT_CONCURRENCY ?? defaults.workerConcurrency);
const TICK = TICK_SECONDS;
const START_LIMIT_MS = 60_000;

async function measure(
  workers: number,
  bases: string[],
  plansFile: string,
): Promise<{ rate: number | null; checks: number; busy: number | null; ranOut: boolean }> {
  const store = await openBenchStore('postgres');
  const children = [];
  try {
    const accountId = await createAccount(store.db);
    const due = new Date(Date.now() - 1000);
    await insertMonitors(store.db, {
      accountId,
      loadMode: 'html',
      intervalMinutes: 60,
      targets: PRODUCT_TARGETS,
      monitors: Array.from({ length: MONITORS }, (_, n) => ({ url: `${bases[n % bases.length]}/small/${n}.html`, nextCheckAt: due })),
    });
    const since = new Date();
    for (let i = 0; i < workers; i++) {
      children.push(
        spawnPagewatch(['worker'], {
          DATABASE_URL: store.databaseUrl!,
          // The worker's health and metrics endpoint, on a free port.
          PORT: '0',
          PAGEWATCH_PLANS_FILE: plansFile,
          PAGEWATCH_ALLOW_PRIVATE_NETWORKS: '127.0.0.0/8',
          PAGEWATCH_WORKER_CONCURRENCY: String(CONCURRENCY),
          PAGEWATCH_TICK_SECONDS: String(TICK),
        }),
      );
    }
    if (!(await waitFor(async () => (await countCheckedSince(store.db, since)) > 0, START_LIMIT_MS)))
      return { rate: null, checks: 0, busy: null, ranOut: false };
    // Let every worker finish starting before the window opens.
    await sleep(3000);
    const before = await countCheckedSince(store.db, since);
    const started = performance.now();
    const cpu = machineCpuTicks();
    await sleep(WINDOW_MS);
    const busy = machineBusySince(cpu);
    const total = await countCheckedSince(store.db, since);
    const checks = total - before;
    return { rate: checks / ((performance.now() - started) / 1000), checks, busy, ranOut: total >= MONITORS };
  } finally {
    await Promise.all(children.map((child) => stopChild(child)));
    await store.close();
  }
}

if (!(await postgresAvailable())) {
  publish('scale-out', '## 5. Scale-out\n\nNot measured: PostgreSQL was not reachable (BENCH_DATABASE_URL).');
} else {
  // Politeness is per host and port across all workers: enough ports that it is not what is measured.
  const server = await startPageServer({ ports: portsForConcurrency(Math.max(...COUNTS) * CONCURRENCY) });
  const plansFile = writeBenchPlansFile();
  try {
    const rows: Cell[][] = [];
    let single: number | null = null;
    for (const workers of COUNTS) {
      const { rate, checks, busy, ranOut } = await measure(workers, server.bases, plansFile);
      if (workers === 1) single = rate;
      const efficiency = rate !== null && single ? rate / (single * workers) : null;
      rows.push([
        workers,
        ranOut ? `≥ ${fmt(rate)} (every monitor checked before the window closed)` : fmt(rate),
        checks,
        efficiency === null ? 'n/a' : `${fmt(efficiency * 100, 0)} %`,
        busy === null ? 'n/a' : `${fmt(busy * 100, 0)} %`,
      ]);
    }
    publish(
      'scale-out',
      `## 5. Scale-out: pagewatch worker processes on PostgreSQL

${MONITORS} html monitors (small pages, 3 targets) due at the start, fixture site in a child process on ${server.bases.length} loopback
ports; each worker \`PAGEWATCH_WORKER_CONCURRENCY=${CONCURRENCY}\`, \`PAGEWATCH_TICK_SECONDS=${TICK}\`. Checks recorded in a
${WINDOW_MS / 1000} s window that opens 3 s after the first check. Scaling efficiency = rate / (rate of 1 worker × workers).
On this ${cpus().length}-core machine the workers, the fixture site and PostgreSQL share the same cores: "machine CPU busy" is the share of
all cores in use during the window (/proc/stat, every process, other engineers' work included). Once it nears 100 %, more
workers cannot add checks here; the efficiency then measures this machine's cores, not the workers' coordination.

${table(['workers', 'checks/s', 'checks in window', 'scaling efficiency', 'machine CPU busy'], rows)}

Re-run: \`node bin/run-ts.js bench/scale-out.bench.ts\` (BENCH_SCALEOUT_WORKERS, BENCH_SCALEOUT_MONITORS, BENCH_SCALEOUT_WINDOW_S,
BENCH_SCALEOUT_CONCURRENCY, BENCH_TICK_SECONDS, BENCH_DATABASE_URL).`,
    );
  } finally {
    await server.close();
    rmSync(plansFile, { force: true });
  }
}
