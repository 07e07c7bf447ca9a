import { cleanupExpired } from '../src/engine/housekeeping.ts';
import { analyzeChangedTables } from '../src/store/planner-statistics.ts';
import { vacuumBusyTables } from '../src/store/vacuum.ts';
import { vacuumSchema } from './lib/autovacuum.ts';
import { PRODUCT_TARGETS } from './lib/pages.ts';
import { benchPlans } from './lib/plans.ts';
import { fmt, mib, publish, table, type Cell } from './lib/report.ts';
import { createAccount, insertMonitors } from './lib/seed.ts';
import { ownSlotAfter } from './lib/own-slots.ts';
import { simulateHistory } from './lib/simulated-hour.ts';
import { openBenchStore, postgresAvailable, STORE_LABELS, tableSizes, type StoreKind } from './lib/stores.ts';
import { recordChecksInBulk, type CheckedMonitor } from './lib/bulk-checks.ts';

// The store's size through a simulated day at the issue's full size: 100,000
// html monitors at 5 minutes, 28.8 million unchanged checks, with retention and
// housekeeping as shipped (cleanupExpired every simulated hour, as the engine
// runs it, on PGlite with its VACUUM; and on PGlite the engine's minute upkeep,
// vacuumBusyTables and analyzeChangedTables, after every slot's checks). Checking that many pages in
// real time would take a day, so the checks are written in bulk with the
// engine's own statements (bench/lib/bulk-checks.ts) after one real
// first capture of every monitor written in bulk (bench/lib/simulated-hour.ts).
//
// PostgreSQL's autovacuum runs on real time, and a simulated hour passes here in
// about a real minute: at every simulated hour boundary on PostgreSQL the
// benchmark runs a plain VACUUM of its schema's tables (bench/lib/autovacuum.ts),
// standing for what autovacuum does in a real hour. Sizes do not depend on the
// machine's speed, so both stores are simulated at once.
//
//   BENCH_DAY_MONITORS  monitors (default 100000)
//   BENCH_DAY_HOURS     simulated hours (default 24)
//   BENCH_DAY_STORES    stores (default pglite,postgres)

const MONITORS = Number(process.env.BENCH_DAY_MONITORS ?? 100_000);
const HOURS = Number(process.env.BENCH_DAY_HOURS ?? 24);
const STORES = (process.env.BENCH_DAY_STORES ?? 'pglite,postgres').split(',') as StoreKind[];
const INTERVAL = 5;
const SLOTS_PER_HOUR = 60 / INTERVAL;
const HOUR_MS = 3_600_000;
const TABLES = ['check_state', 'check_runs', 'check_leases', 'monitors', 'baselines', 'texts', 'usage_counters'];
const PLANS = benchPlans();
const RETENTION_DAYS = PLANS.pro.retention_days;
/** The curve's rows: these simulated hours (and the last). */
const SHOWN_HOURS = new Set([0, 1, 2, 3, 6, 9, 12, 15, 18, 21, 24, HOURS]);

interface Day {
  kind: StoreKind;
  /** total size of the schema's tables and indexes, index h: at the end of simulated hour h (0: after the first captures) */
  sizes: number[];
  tablesAtStart: Map<string, number>;
  tablesAtEnd: Map<string, number>;
  checks: number;
  /** the longest hourly housekeeping (retention's deletes and, on PGlite, its VACUUM), and PGlite's longest single VACUUM */
  longestCleanupMs: number;
  longestVacuumMs: number;
  /** PGlite: the longest minute upkeep (the vacuum slices and ANALYZE of busy tables) */
  longestUpkeepMs: number;
  realSeconds: number;
}

async function simulateDay(kind: StoreKind): Promise<Day> {
  const started = performance.now();
  const store = await openBenchStore(kind);
  try {
    const accountId = await createAccount(store.db);
    const dayStart = new Date();
    const seeds = Array.from({ length: MONITORS }, (_, n) => ({
      n,
      url: `http://127.0.0.1:${8000 + (n % 12)}/small/${n}.html`,
      nextCheckAt: dayStart,
    }));
    const ids = await insertMonitors(store.db, {
      accountId,
      loadMode: 'html',
      intervalMinutes: INTERVAL,
      targets: PRODUCT_TARGETS,
      monitors: seeds,
    });
    const monitors: CheckedMonitor[] = seeds.map((s, i) => ({ id: ids[i]!, accountId, host: new URL(s.url).host }));
    // The first capture of every page; the pages never change afterwards.
    await simulateHistory(store.db, {
      accountId,
      plan: PLANS.pro,
      targets: PRODUCT_TARGETS,
      intervalMinutes: INTERVAL,
      changeSeconds: Number.MAX_SAFE_INTEGER,
      slots: 1,
      // Each monitor's own slot of the interval before the day.
      monitors: seeds.map((s, i) => ({
        ...monitors[i]!,
        n: s.n,
        url: s.url,
        firstAt: ownSlotAfter(monitors[i]!.id, INTERVAL, new Date(dayStart.getTime() - INTERVAL * 60_000)),
      })),
    });
    const sizes = [await store.sizeBytes()];
    const tablesAtStart = await tableSizes(store.db, TABLES);
    let longestCleanupMs = 0;
    let longestVacuumMs = 0;
    let longestUpkeepMs = 0;
    for (let hour = 1; hour <= HOURS; hour++) {
      for (let slot = 0; slot < SLOTS_PER_HOUR; slot++) {
        const at = new Date(dayStart.getTime() + (hour - 1) * HOUR_MS + slot * INTERVAL * 60_000);
        await recordChecksInBulk(store.db, monitors, { atOf: () => at, intervalMinutes: INTERVAL, plan: PLANS.pro });
        if (store.db.kind === 'pglite') {
          const upkeepStarted = performance.now();
          longestVacuumMs = Math.max(longestVacuumMs, ...Object.values(await vacuumBusyTables(store.db)));
          await analyzeChangedTables(store.db);
          longestUpkeepMs = Math.max(longestUpkeepMs, performance.now() - upkeepStarted);
        }
      }
      const at = new Date(dayStart.getTime() + hour * HOUR_MS);
      if (store.db.kind === 'postgres') await vacuumSchema(store.db);
      const cleanupStarted = performance.now();
      const report = await cleanupExpired(store.db, PLANS, at);
      longestCleanupMs = Math.max(longestCleanupMs, performance.now() - cleanupStarted);
      longestVacuumMs = Math.max(longestVacuumMs, ...Object.values(report.vacuumMs ?? {}));
      sizes.push(await store.sizeBytes());
      console.log(
        `${kind}: simulated hour ${hour}, ${mib(sizes[hour]!)}, ${fmt((performance.now() - started) / 1000, 0)} s; longest so far:` +
          ` hourly housekeeping ${fmt(longestCleanupMs / 1000, 1)} s, minute upkeep ${fmt(longestUpkeepMs / 1000, 1)} s, VACUUM ${fmt(longestVacuumMs / 1000, 1)} s`,
      );
    }
    return {
      kind,
      sizes,
      tablesAtStart,
      tablesAtEnd: await tableSizes(store.db, TABLES),
      checks: MONITORS * SLOTS_PER_HOUR * HOURS,
      longestCleanupMs,
      longestVacuumMs,
      longestUpkeepMs,
      realSeconds: (performance.now() - started) / 1000,
    };
  } finally {
    await store.close();
  }
}

const perCheck = (bytes: number, checks: number) => `${fmt(bytes / checks, 0)} B`;

const kinds = (await postgresAvailable()) ? STORES : STORES.filter((k) => k === 'pglite');
const days = await Promise.all(kinds.map(simulateDay));
const checksPerHour = MONITORS * SLOTS_PER_HOUR;
const curve: Cell[][] = [...SHOWN_HOURS]
  .filter((h) => h <= HOURS)
  .map((h) => [
    h,
    ...days.map((d) => mib(d.sizes[h]!)),
    ...days.map((d) => (h === 0 ? '' : perCheck(d.sizes[h]! - d.sizes[h - 1]!, checksPerHour))),
  ]);
const summary: Cell[][] = days.map((d) => [
  STORE_LABELS[d.kind],
  d.checks.toLocaleString('en-US'),
  perCheck(d.sizes[HOURS]! - d.sizes[0]!, d.checks),
  HOURS > 1 ? perCheck(d.sizes[HOURS]! - d.sizes[1]!, d.checks - checksPerHour) : 'n/a',
  ...TABLES.map((t) => perCheck((d.tablesAtEnd.get(t) ?? 0) - (d.tablesAtStart.get(t) ?? 0), d.checks)),
  `${fmt(d.longestCleanupMs / 1000, 1)} s`,
  d.kind === 'postgres' ? 'n/a' : `${fmt(d.longestUpkeepMs / 1000, 1)} s`,
  d.kind === 'postgres' ? 'n/a' : `${fmt(d.longestVacuumMs / 1000, 1)} s`,
  `${fmt(d.realSeconds / 60, 0)} min`,
]);
const retentionGrowth = days.map(
  (d) => `${STORE_LABELS[d.kind]} ${fmt((((d.sizes[HOURS]! - d.sizes[1]!) / (HOURS - 1)) * 24 * RETENTION_DAYS) / 1073741824, 1)} GiB`,
);

publish(
  'simulated-day',
  `## 7. Store size through a simulated day at ${MONITORS.toLocaleString('en-US')} monitors

**${MONITORS.toLocaleString('en-US')} html monitors** of one Pro account at a ${INTERVAL}-minute interval, ${HOURS} simulated hours:
${(MONITORS * SLOTS_PER_HOUR * HOURS).toLocaleString('en-US')} unchanged checks per store after one first capture of every monitor. The checks are written in bulk with
the engine's own statements (\`bench/lib/bulk-checks.ts\`: the claim's allowance reservation and lease, the commit's
check state, history row and the lease's release); housekeeping runs as shipped once every simulated hour (retention's
deletes; on PGlite its \`VACUUM (ANALYZE)\` of the hot tables), and on PGlite the engine's minute upkeep (a \`VACUUM\` of each
hot table written more than 50,000 rows since its last one, an \`ANALYZE\` of tables that changed much) after every slot. PostgreSQL's autovacuum is given a plain \`VACUUM\` of the
schema at every simulated hour boundary, standing for a real hour of it. Loads and the claims' reads are not simulated.
Sizes are tables and indexes, at the end of each simulated hour after its housekeeping.

${table(['simulated hour', ...days.map((d) => STORE_LABELS[d.kind]), ...days.map((d) => `${STORE_LABELS[d.kind]}: growth per check that hour`)], curve)}

${table(['store', 'checks', 'growth per unchanged check', 'after the first hour', ...TABLES, 'longest hourly housekeeping', 'longest minute upkeep', 'longest single VACUUM', 'real time'], summary)}

The growth after the first hour is almost all the history row: the check state's and the leases' dead row versions are bounded by
the number of monitors and reused after each vacuum. The Pro plan keeps check history ${RETENTION_DAYS} days, so at this rate the
store grows until then by about ${retentionGrowth.join(' and ')} (arithmetic from the figure after the first hour), and stops
growing there: the curve flattening at retention's horizon is section 6's long run at a smaller size.${
    days.length > 1 ? ' Both stores were simulated at once, so the housekeeping times are those of a machine doing twice the work.' : ''
  }

Re-run: \`node bin/run-ts.js bench/simulated-day.bench.ts\` (BENCH_DAY_MONITORS, BENCH_DAY_HOURS, BENCH_DAY_STORES, BENCH_DATABASE_URL).`,
);
