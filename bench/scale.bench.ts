import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { nextDueAt, stableOffsetSeconds } from '../src/domain/schedule.ts';
import { DEFAULT_HOST_CONCURRENCY } from '../src/engine/host-politeness.ts';
import type { Loaders } from '../src/engine/loaders.ts';
import { benchEngine, benchLoaders, TICK_SECONDS } from './lib/engine.ts';
import { percentile, sleep } from './lib/measure.ts';
import { startPageServer, type PageServer } from './lib/page-server.ts';
import { PRODUCT_TARGETS } from './lib/pages.ts';
import { fmt, mib, publish, ratio, table, type Cell } from './lib/report.ts';
import { createAccount, insertMonitors } from './lib/seed.ts';
import { openBenchStore, postgresAvailable, STORE_LABELS, type StoreKind } from './lib/stores.ts';

// Item 3: many active html monitors on one machine, in real time: sustained
// checks/s against the offered rate (monitors / interval), lateness of each
// check's start against its due time, CPU, peak RSS and the store's size.
// The full size is 100,000 monitors at 5 minutes (≈ 333 checks/s)
// for an hour; the default is a tenth of the monitors for 2 minutes so that
// `npm run bench` stays short, and the hour's store size is extrapolated from
// the bytes each check added (the full run measures it).
//
//   BENCH_SCALE_MONITORS     active monitors (default 10000; the size: 100000)
//   BENCH_SCALE_MINUTES      real minutes of running per store (default 2; the issue's: 60)
//   BENCH_SCALE_INTERVAL     interval_minutes of every monitor (default 5)
//   BENCH_SCALE_CONCURRENCY  checks at once (default 16)
//   BENCH_SCALE_STORES       stores (default pglite,postgres)
//   BENCH_TICK_SECONDS       scheduler cycle (default 1, see bench/lib/engine.ts)

const MONITORS = Number(process.env.BENCH_SCALE_MONITORS ?? 10_000);
const MINUTES = Number(process.env.BENCH_SCALE_MINUTES ?? 2);
const INTERVAL = Number(process.env.BENCH_SCALE_INTERVAL ?? 5);
const CONCURRENCY = Number(process.env.BENCH_SCALE_CONCURRENCY ?? 16);
const STORES = (process.env.BENCH_SCALE_STORES ?? 'pglite,postgres').split(',') as StoreKind[];
const FULL_MONITORS = 100_000;
const HOUR_CHECKS_AT_FULL_SIZE = FULL_MONITORS * (60 / INTERVAL);
const START_DELAY_MS = 5_000;

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
    // Each monitor due at its own next slot (src/domain/schedule.ts), as a settled service has them.
    const start = new Date(Date.now() + START_DELAY_MS);
    const seeds = Array.from({ length: MONITORS }, (_, n) => {
      const id = randomUUID();
      return { id, url: `${server.bases[n % server.bases.length]}/small/${n}.html`, nextCheckAt: nextDueAt(start, INTERVAL, stableOffsetSeconds(id, INTERVAL), start) };
    });
    const ids = await insertMonitors(store.db, { accountId, loadMode: 'html', intervalMinutes: INTERVAL, targets: PRODUCT_TARGETS, monitors: seeds });
    const seedBytes = await store.sizeBytes();
    const due = new Map(seeds.map((seed, i) => [seed.url, { id: ids[i], at: seed.nextCheckAt.getTime() }]));
    const lateness: number[] = [];
    const engine = benchEngine(store.db, timedLoaders(inner, due, lateness), CONCURRENCY);
    let peakRss = 0;
    const cpuBefore = process.cpuUsage();
    const siteBefore = server.cpuMs();
    const started = performance.now();
    engine.start();
    const until = Date.now() + MINUTES * 60_000;
    while (Date.now() < until) {
      peakRss = Math.max(peakRss, process.memoryUsage().rss);
      await sleep(1000);
    }
    await engine.stop();
    const elapsed = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    const sorted = [...lateness].sort((a, b) => a - b);
    return {
      checks: lateness.length,
      // Nothing is due during the start delay.
      rate: lateness.length / (elapsed - START_DELAY_MS / 1000),
      p50: percentile(sorted, 50),
      p99: percentile(sorted, 99),
      cpuPercent: ((cpu.user + cpu.system) / 1000 / (elapsed * 1000)) * 100,
      siteCpuPercent: ((server.cpuMs() - siteBefore) / (elapsed * 1000)) * 100,
      peakRss,
      seedBytes,
      endBytes: await store.sizeBytes(),
    };
  } finally {
    await inner.close();
    await store.close();
  }
}

const kinds = (await postgresAvailable()) ? STORES : STORES.filter((k) => k === 'pglite');
// Politeness is per host and port: enough ports that it is not what is measured.
const server = await startPageServer({ ports: Math.ceil(CONCURRENCY / DEFAULT_HOST_CONCURRENCY) });
const offered = MONITORS / (INTERVAL * 60);
try {
  const rows: Cell[][] = [];
  const sizes: Cell[][] = [];
  for (const kind of kinds) {
    const f = await run(kind, server);
    rows.push([
      STORE_LABELS[kind], fmt(offered), fmt(f.rate), ratio(f.rate, offered), f.checks,
      f.p50 === null ? 'n/a' : fmt(f.p50 / 1000, 2), f.p99 === null ? 'n/a' : fmt(f.p99 / 1000, 2),
      `${fmt(f.cpuPercent, 0)} %`, `${fmt(f.siteCpuPercent, 0)} %`, mib(f.peakRss),
    ]);
    const perCheck = f.checks > 0 ? (f.endBytes - f.seedBytes) / f.checks : null;
    const hour = perCheck === null ? null : (f.seedBytes / MONITORS) * FULL_MONITORS + perCheck * HOUR_CHECKS_AT_FULL_SIZE;
    sizes.push([STORE_LABELS[kind], mib(f.seedBytes), mib(f.endBytes), perCheck === null ? 'n/a' : `${fmt(perCheck, 0)} B`, mib(hour)]);
  }
  publish(
    'scale',
    `## 3. Scale: many active html monitors on one machine

This run: **${MONITORS.toLocaleString('en-US')} monitors** at a ${INTERVAL}-minute interval (offered ${fmt(offered)} checks/s) for
**${MINUTES} real minutes** per store, ${CONCURRENCY} checks at once, scheduler cycle ${TICK_SECONDS} s; small pages (the three
watched elements, ~0.3 KB) whose price moves every 10 minutes, served by a child process on ${server.bases.length} loopback ports.
Lateness is the start of each check's load against its due time. CPU is the benchmark process (engine, and PGlite itself when
embedded) and the fixture site's process, as a share of one core; PostgreSQL's server processes are not included (other
engineers' tests share that server). Peak RSS is the benchmark process; the PostgreSQL run follows the PGlite run in the
same process, so its figure includes what the PGlite run left allocated.

${table(['store', 'offered checks/s', 'sustained checks/s', 'ratio', 'checks', 'lateness p50 s', 'lateness p99 s', 'CPU', 'site CPU', 'peak RSS'], rows)}

Store size (tables and indexes). The hour column is an **estimate** for the issue's full size, ${FULL_MONITORS.toLocaleString('en-US')}
monitors for an hour (${HOUR_CHECKS_AT_FULL_SIZE.toLocaleString('en-US')} checks): the seeded size per monitor scaled up plus the bytes
each check added in this run; the first capture of a monitor writes its baselines, so per-check growth is front-loaded and
the estimate is on the high side.

${table(['store', 'after seeding', 'after the run', 'per check', 'hour at full size (est.)'], sizes)}

The full size needs ≈ ${fmt(FULL_MONITORS / (INTERVAL * 60), 0)} checks/s sustained; compare the sustained rate above (and the HTML
checks benchmark) with that. Full run: \`BENCH_SCALE_MONITORS=100000 BENCH_SCALE_MINUTES=60 node bin/run-ts.js bench/scale.bench.ts\`
(two hours for both stores, plus seeding).

Re-run: \`node bin/run-ts.js bench/scale.bench.ts\` (BENCH_SCALE_MONITORS, BENCH_SCALE_MINUTES, BENCH_SCALE_INTERVAL,
BENCH_SCALE_CONCURRENCY, BENCH_SCALE_STORES, BENCH_TICK_SECONDS, BENCH_DATABASE_URL).`,
  );
} finally {
  await server.close();
}
