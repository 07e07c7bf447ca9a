import { randomUUID } from 'node:crypto';
import { createEngine } from '../src/engine/scheduler.ts';
import { vacuumHotTables } from '../src/store/vacuum.ts';
import { benchLoaders } from './lib/engine.ts';
import { startPageServer } from './lib/page-server.ts';
import { PRODUCT_TARGETS } from './lib/pages.ts';
import { benchPlans } from './lib/plans.ts';
import { fmt, mib, publish, table, type Cell } from './lib/report.ts';
import { createAccount, insertMonitors } from './lib/seed.ts';
import { openBenchStore, postgresAvailable, STORE_LABELS, type StoreKind } from './lib/stores.ts';

// Store growth of unchanged checks, with the engine as shipped (claims, group
// commit, hourly housekeeping with its vacuum on PGlite) on a manual clock:
// every round moves the clock one interval on and checks every monitor once
// against pages that never change. The size of each table is measured after
// the first captures and after every simulated hour.
//
//   BENCH_GROWTH_MONITORS  monitors (default 1000)
//   BENCH_GROWTH_HOURS     simulated hours (default 3)
//   BENCH_GROWTH_STORES    stores (default pglite,postgres)

const MONITORS = Number(process.env.BENCH_GROWTH_MONITORS ?? 1000);
const HOURS = Number(process.env.BENCH_GROWTH_HOURS ?? 3);
const STORES = (process.env.BENCH_GROWTH_STORES ?? 'pglite,postgres').split(',') as StoreKind[];
const INTERVAL = 5;
const ROUNDS_PER_HOUR = 60 / INTERVAL;
const CONCURRENCY = 32;
const TABLES = ['check_state', 'check_runs', 'check_leases', 'monitors', 'baselines', 'texts', 'usage_counters'];

const TABLE_SIZES = `SELECT c.relname AS name, pg_total_relation_size(c.oid)::bigint AS bytes
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE n.nspname = current_schema() AND c.relname = ANY($1::text[])`;

interface Growth {
  afterFirst: number;
  hourly: number[];
  perTable: Map<string, number>;
  checks: number;
  seconds: number;
  /** PGlite: the longest VACUUM of one table (the pause requests may see) and of all, in ms */
  vacuum: { longest: number; total: number } | null;
}

async function run(kind: StoreKind, bases: string[]): Promise<Growth> {
  const store = await openBenchStore(kind);
  const loaders = benchLoaders();
  try {
    const accountId = await createAccount(store.db);
    let now = Date.now();
    const monitors = Array.from({ length: MONITORS }, (_, n) => ({
      id: randomUUID(),
      url: `${bases[n % bases.length]}/small/${n}.html`,
      nextCheckAt: new Date(now),
    }));
    await insertMonitors(store.db, { accountId, loadMode: 'html', intervalMinutes: INTERVAL, targets: PRODUCT_TARGETS, monitors });
    // A cycle as long as an hour: the manual clock jumps a whole interval, which must not count as overdue.
    const engine = createEngine({
      db: store.db,
      clock: { now: () => new Date(now) },
      loaders,
      plans: benchPlans(),
      tickSeconds: 3600,
      concurrency: CONCURRENCY,
      hostConcurrency: CONCURRENCY,
      logger: { error: (details, message) => console.error(message, details) },
    });
    let checks = 0;
    const round = async () => {
      for (;;) {
        const report = await engine.runCycle();
        checks += report.outcomes.filter((o) => o.outcome === 'recorded').length;
        if (report.claimed.length === 0) return;
      }
    };
    const tableSizes = async () =>
      new Map((await store.db.query<{ name: string; bytes: number }>(TABLE_SIZES, [TABLES])).map((r) => [r.name, Number(r.bytes)]));
    await round();
    const afterFirst = await store.sizeBytes();
    const firstTables = await tableSizes();
    const firstChecks = checks;
    const started = performance.now();
    const hourly: number[] = [];
    for (let hour = 0; hour < HOURS; hour++) {
      for (let r = 0; r < ROUNDS_PER_HOUR; r++) {
        now += INTERVAL * 60_000;
        await round();
      }
      hourly.push(await store.sizeBytes());
    }
    const lastTables = await tableSizes();
    const unchanged = checks - firstChecks;
    const perTable = new Map(TABLES.map((name) => [name, ((lastTables.get(name) ?? 0) - (firstTables.get(name) ?? 0)) / unchanged]));
    await engine.stop();
    const seconds = (performance.now() - started) / 1000;
    const took = store.db.kind === 'pglite' ? Object.values(await vacuumHotTables(store.db)) : null;
    const vacuum = took && { longest: Math.max(...took), total: took.reduce((a, b) => a + b, 0) };
    return { afterFirst, hourly, perTable, checks: unchanged, seconds, vacuum };
  } finally {
    await loaders.close();
    await store.close();
  }
}

const kinds = (await postgresAvailable()) ? STORES : STORES.filter((k) => k === 'pglite');
const server = await startPageServer({ ports: CONCURRENCY / 2, changeSeconds: 1_000_000_000 });
try {
  const rows: Cell[][] = [];
  const tables: Cell[][] = [];
  for (const kind of kinds) {
    const g = await run(kind, server.bases);
    const total = (g.hourly.at(-1)! - g.afterFirst) / g.checks;
    rows.push([
      STORE_LABELS[kind],
      mib(g.afterFirst),
      ...g.hourly.map((bytes) => mib(bytes)),
      `${fmt(total, 0)} B`,
      g.checks,
      fmt(g.checks / g.seconds),
      g.vacuum ? `${g.vacuum.longest} ms / ${g.vacuum.total} ms` : 'autovacuum',
    ]);
    tables.push([STORE_LABELS[kind], ...TABLES.map((name) => `${fmt(g.perTable.get(name) ?? 0, 0)} B`)]);
    console.log(STORE_LABELS[kind], g);
  }
  publish(
    'store-growth',
    `## Store growth of unchanged checks

${MONITORS.toLocaleString('en-US')} html monitors at ${INTERVAL} minutes whose pages never change, checked by the engine as shipped
(claims, group commit, hourly housekeeping; on PGlite its VACUUM) on a manual clock that moves one interval per round, for
${HOURS} simulated hours after the first captures. Sizes are tables and indexes.

${table(['store', 'after first captures', ...Array.from({ length: HOURS }, (_, h) => `after hour ${h + 1}`), 'bytes per unchanged check', 'unchanged checks', 'checks/s', 'vacuum: longest table / all'], rows)}

Bytes per unchanged check, by table (with its indexes and TOAST):

${table(['store', ...TABLES], tables)}

check_runs is the check history, kept for the plan's retention (then deleted by the hourly cleanup): it grows until the
retention horizon. Re-run: \`node bin/run-ts.js bench/store-growth.bench.ts\` (BENCH_GROWTH_MONITORS, BENCH_GROWTH_HOURS, BENCH_GROWTH_STORES).`,
  );
} finally {
  await server.close();
}
