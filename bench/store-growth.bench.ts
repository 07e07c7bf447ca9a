import { randomUUID } from 'node:crypto';
import { createSteppedEngine } from '../src/engine/scheduler.ts';
import { vacuumHotTables } from '../src/store/vacuum.ts';
import { vacuumSchema } from './lib/autovacuum.ts';
import { benchLoaders } from './lib/engine.ts';
import { startPageServer } from './lib/page-server.ts';
import { PRODUCT_TARGETS } from './lib/pages.ts';
import { benchPlans } from './lib/plans.ts';
import { fmt, mib, publish, table, type Cell } from './lib/report.ts';
import { createAccount, insertMonitors } from './lib/seed.ts';
import { openBenchStore, postgresAvailable, STORE_LABELS, tableSizes, type BenchStore, type StoreKind } from './lib/stores.ts';

// Store growth of unchanged checks, with the engine as shipped (claims, group
// commit, hourly housekeeping: retention's deletes and, on PGlite, its VACUUM)
// on a manual clock: every round moves the clock one interval on and checks
// every monitor once against pages that never change. Two phases:
//
// - hours: the size of each table after the first captures and after every
//   simulated hour (1,000 monitors at 5 minutes for 3 hours).
// - days: a smaller install (60 monitors at 60 minutes) for longer than the
//   Pro plan's retention (90 days), the store's size sampled once a simulated
//   day, to show where it stops growing.
//
// PostgreSQL's autovacuum runs on real time (a look every minute), and here a
// simulated hour passes in about a real second, so it would hardly ever run.
// At every simulated hour boundary on PostgreSQL the benchmark therefore runs a
// plain VACUUM (not FULL) of the schema's tables (bench/lib/autovacuum.ts),
// standing for what autovacuum does in a real hour, at the moment PGlite's
// housekeeping vacuums (before that round's checks). The product itself does
// not run it.
//
//   BENCH_GROWTH_PHASES        phases (default hours,days)
//   BENCH_GROWTH_MONITORS      hours phase: monitors (default 1000)
//   BENCH_GROWTH_HOURS         hours phase: simulated hours (default 3)
//   BENCH_GROWTH_DAY_MONITORS  days phase: monitors (default 60)
//   BENCH_GROWTH_DAY_INTERVAL  days phase: check interval in minutes (default 60)
//   BENCH_GROWTH_DAYS          days phase: simulated days (default 120)
//   BENCH_GROWTH_STORES        stores (default pglite,postgres)

const PHASES = (process.env.BENCH_GROWTH_PHASES ?? 'hours,days').split(',');
const MONITORS = Number(process.env.BENCH_GROWTH_MONITORS ?? 1000);
const HOURS = Number(process.env.BENCH_GROWTH_HOURS ?? 3);
const DAY_MONITORS = Number(process.env.BENCH_GROWTH_DAY_MONITORS ?? 60);
const DAY_INTERVAL = Number(process.env.BENCH_GROWTH_DAY_INTERVAL ?? 60);
const DAYS = Number(process.env.BENCH_GROWTH_DAYS ?? 120);
const STORES = (process.env.BENCH_GROWTH_STORES ?? 'pglite,postgres').split(',') as StoreKind[];
const INTERVAL = 5;
const CONCURRENCY = 32;
const HOUR_MS = 3_600_000;
const TABLES = ['check_state', 'check_runs', 'check_leases', 'monitors', 'baselines', 'texts', 'usage_counters'];
const PLANS = benchPlans();
// The benchmark plans raise allowances and rate limits only: retention is the shipped plan's.
const RETENTION_DAYS = PLANS.pro.retention_days;
/** The install the issue asks about, for the extrapolation. */
const FULL_MONITORS = 100_000;
const FULL_INTERVAL = 5;

interface Simulation {
  store: BenchStore;
  /** unchanged checks recorded so far (the first captures included) */
  checks(): number;
  /** moves the clock one interval on (on PostgreSQL vacuuming at each hour boundary) and checks every monitor once */
  step(): Promise<void>;
  tableSizes(): Promise<Map<string, number>>;
  /** PostgreSQL: milliseconds each stand-in VACUUM took */
  vacuums: number[];
}

/** A store with `monitors` monitors of one Pro account, checked once (the first captures) before `body` runs. */
async function simulate<T>(
  kind: StoreKind,
  bases: string[],
  shape: { monitors: number; interval: number },
  body: (sim: Simulation) => Promise<T>,
): Promise<T> {
  const store = await openBenchStore(kind);
  const loaders = benchLoaders();
  try {
    const accountId = await createAccount(store.db);
    let now = Date.now();
    const monitors = Array.from({ length: shape.monitors }, (_, n) => ({
      id: randomUUID(),
      url: `${bases[n % bases.length]}/small/${n}.html`,
      nextCheckAt: new Date(now),
    }));
    await insertMonitors(store.db, {
      accountId,
      loadMode: 'html',
      intervalMinutes: shape.interval,
      targets: PRODUCT_TARGETS,
      monitors,
    });
    // A cycle at least as long as an hour: the manual clock jumps a whole interval, which must not count as overdue.
    const engine = createSteppedEngine({
      db: store.db,
      clock: { now: () => new Date(now) },
      loaders,
      plans: PLANS,
      tickSeconds: Math.max(3600, shape.interval * 60),
      concurrency: CONCURRENCY,
      hostConcurrency: CONCURRENCY,
      // No info lines: a line per check would be part of what is measured.
      logger: {
        info: () => undefined,
        error: (details, message) => console.error(message, details),
        warn: (details, message) => console.warn(message, details),
      },
    });
    let checks = 0;
    const round = async () => {
      for (;;) {
        const report = await engine.runCycle();
        checks += report.outcomes.filter((o) => o.outcome === 'recorded').length;
        if (report.claimed.length === 0) return;
      }
    };
    await round();
    let lastVacuum = now;
    const sim: Simulation = {
      store,
      checks: () => checks,
      async step() {
        now += shape.interval * 60_000;
        if (store.db.kind === 'postgres' && now - lastVacuum >= HOUR_MS) {
          sim.vacuums.push(await vacuumSchema(store.db));
          lastVacuum = now;
        }
        await round();
      },
      tableSizes: () => tableSizes(store.db, TABLES),
      vacuums: [],
    };
    try {
      return await body(sim);
    } finally {
      await engine.stop();
    }
  } finally {
    await loaders.close();
    await store.close();
  }
}

interface VacuumPause {
  longest: number;
  total: number;
}

interface HourGrowth {
  afterFirst: number;
  hourly: number[];
  perTable: Map<string, number>;
  checks: number;
  seconds: number;
  /** PGlite: its housekeeping VACUUM after the run, the longest table and all; PostgreSQL: the hourly stand-in VACUUMs, the longest and all */
  vacuum: VacuumPause;
}

const pause = (took: number[]): VacuumPause => ({ longest: Math.max(0, ...took), total: took.reduce((a, b) => a + b, 0) });

function hours(kind: StoreKind, bases: string[]): Promise<HourGrowth> {
  return simulate(kind, bases, { monitors: MONITORS, interval: INTERVAL }, async (sim) => {
    const afterFirst = await sim.store.sizeBytes();
    const firstTables = await sim.tableSizes();
    const firstChecks = sim.checks();
    const started = performance.now();
    const hourly: number[] = [];
    for (let hour = 0; hour < HOURS; hour++) {
      for (let r = 0; r < 60 / INTERVAL; r++) await sim.step();
      hourly.push(await sim.store.sizeBytes());
    }
    const seconds = (performance.now() - started) / 1000;
    const lastTables = await sim.tableSizes();
    const unchanged = sim.checks() - firstChecks;
    const perTable = new Map(TABLES.map((name) => [name, ((lastTables.get(name) ?? 0) - (firstTables.get(name) ?? 0)) / unchanged]));
    const vacuum = sim.store.db.kind === 'pglite' ? pause(Object.values(await vacuumHotTables(sim.store.db))) : pause(sim.vacuums);
    return { afterFirst, hourly, perTable, checks: unchanged, seconds, vacuum };
  });
}

interface DaySample {
  bytes: number;
  /** rows of check history kept */
  history: number;
  /** checks recorded since the first captures */
  checks: number;
}

interface DayGrowth {
  /** index 0: after the first captures; index d: at the end of simulated day d */
  samples: DaySample[];
  atHorizon: Map<string, number> | null;
  atEnd: Map<string, number>;
  seconds: number;
  vacuum: VacuumPause | null;
}

function days(kind: StoreKind, bases: string[]): Promise<DayGrowth> {
  return simulate(kind, bases, { monitors: DAY_MONITORS, interval: DAY_INTERVAL }, async (sim) => {
    const firstChecks = sim.checks();
    const sample = async (): Promise<DaySample> => {
      const rows = await sim.store.db.query<{ n: number }>('SELECT count(*)::int AS n FROM check_runs');
      return { bytes: await sim.store.sizeBytes(), history: rows[0]!.n, checks: sim.checks() - firstChecks };
    };
    const samples = [await sample()];
    let atHorizon: Map<string, number> | null = null;
    const started = performance.now();
    for (let day = 1; day <= DAYS; day++) {
      for (let r = 0; r < (24 * 60) / DAY_INTERVAL; r++) await sim.step();
      samples.push(await sample());
      if (day === RETENTION_DAYS) atHorizon = await sim.tableSizes();
      if (day % 10 === 0) console.log(`${STORE_LABELS[kind]}: day ${day}, ${mib(samples[day]!.bytes)}`);
    }
    const seconds = (performance.now() - started) / 1000;
    return {
      samples,
      atHorizon,
      atEnd: await sim.tableSizes(),
      seconds,
      vacuum: sim.store.db.kind === 'postgres' ? pause(sim.vacuums) : null,
    };
  });
}

const kib = (bytes: number) => `${fmt(bytes / 1024, 0)} KiB`;

/** Growth per check recorded between two daily samples. */
const perCheck = (from: DaySample, to: DaySample) => (to.bytes - from.bytes) / (to.checks - from.checks);

/** The first day from which the size never again exceeds that day's by more than 1 %; null if only the last day. */
function flatFrom(samples: DaySample[]): number | null {
  for (let day = 1; day < samples.length - 1; day++) {
    if (samples.slice(day + 1).every((s) => s.bytes <= samples[day]!.bytes * 1.01)) return day;
  }
  return null;
}

function hoursReport(results: [StoreKind, HourGrowth][]): string {
  const rows: Cell[][] = [];
  const tables: Cell[][] = [];
  for (const [kind, g] of results) {
    rows.push([
      STORE_LABELS[kind],
      mib(g.afterFirst),
      ...g.hourly.map((bytes) => mib(bytes)),
      `${fmt((g.hourly.at(-1)! - g.afterFirst) / g.checks, 0)} B`,
      g.checks,
      fmt(g.checks / g.seconds),
      `${g.vacuum.longest} ms / ${g.vacuum.total} ms`,
    ]);
    tables.push([STORE_LABELS[kind], ...TABLES.map((name) => `${fmt(g.perTable.get(name) ?? 0, 0)} B`)]);
  }
  return `${MONITORS.toLocaleString('en-US')} html monitors at ${INTERVAL} minutes whose pages never change, checked by the engine as shipped
(claims, group commit, hourly housekeeping; on PGlite its VACUUM) on a manual clock that moves one interval per round, for
${HOURS} simulated hours after the first captures. Sizes are tables and indexes. On PostgreSQL a plain \`VACUUM\` of the
benchmark's tables runs at every simulated hour boundary, standing for autovacuum (see below). Vacuum: on PGlite one
housekeeping VACUUM after the run, its longest table and all tables; on PostgreSQL the hourly stand-in VACUUMs (all tables
each), the longest and all together.

${table(['store', 'after first captures', ...Array.from({ length: HOURS }, (_, h) => `after hour ${h + 1}`), 'bytes per unchanged check', 'unchanged checks', 'checks/s', 'vacuum: longest / all'], rows)}

Bytes per unchanged check, by table (with its indexes and TOAST):

${table(['store', ...TABLES], tables)}

check_runs is the check history, kept for the plan's retention (then deleted by the hourly cleanup): it grows until the
retention horizon (the days phase below shows it stop).`;
}

function daysReport(results: [StoreKind, DayGrowth][]): string {
  const checksPerDay = (DAY_MONITORS * 24 * 60) / DAY_INTERVAL;
  const fullChecksPerDay = (FULL_MONITORS * 24 * 60) / FULL_INTERVAL;
  const shown = Array.from({ length: DAYS + 1 }, (_, d) => d).filter((d) => d <= 1 || d % 10 === 0 || d === DAYS);
  const curve = shown.map((d) => [
    d === 0 ? 'after first captures' : d,
    ...results.flatMap(([, g]) => [mib(g.samples[d]!.bytes), g.samples[d]!.history.toLocaleString('en-US')]),
  ]);
  const span = Math.min(10, Math.floor((DAYS - 1) / 2));
  const summary: Cell[][] = [];
  const byTable: Cell[][] = [];
  const extrapolation: string[] = [];
  for (const [kind, g] of results) {
    const s = g.samples;
    // From the end of day 1: the first day also fills the pages every later day reuses.
    const start = perCheck(s[1]!, s[1 + span]!);
    const end = perCheck(s[DAYS - span]!, s[DAYS]!);
    const flat = flatFrom(s);
    summary.push([
      STORE_LABELS[kind],
      `${fmt(start, 0)} B`,
      `${fmt(end, 0)} B`,
      flat === null ? 'not within the run' : `day ${flat}`,
      mib(Math.max(...s.map((x) => x.bytes))),
      mib(s[DAYS]!.bytes),
      s[DAYS]!.checks.toLocaleString('en-US'),
      fmt(g.seconds, 0),
      g.vacuum ? `${g.vacuum.longest} ms / ${g.vacuum.total} ms` : 'hourly housekeeping (as shipped)',
    ]);
    if (g.atHorizon) {
      for (const name of TABLES) byTable.push([STORE_LABELS[kind], name, kib(g.atHorizon.get(name) ?? 0), kib(g.atEnd.get(name) ?? 0)]);
    }
    const bytes = fullChecksPerDay * start * RETENTION_DAYS;
    extrapolation.push(
      `- ${STORE_LABELS[kind]}: ${fullChecksPerDay.toLocaleString('en-US')} checks/day × ${fmt(start, 0)} B × ${RETENTION_DAYS} days ≈ ${fmt(bytes / 2 ** 30, 0)} GiB (${fmt((fullChecksPerDay * start) / 2 ** 30, 1)} GiB a day until the horizon)`,
    );
  }
  return `A smaller install than the issue's 100,000 monitors, run for longer than retention: ${DAY_MONITORS.toLocaleString('en-US')} html monitors
at ${DAY_INTERVAL} minutes (${checksPerDay.toLocaleString('en-US')} checks a day) whose pages never change, one Pro account (retention
${RETENTION_DAYS} days, as shipped), the engine as shipped on a manual clock that moves one interval per round, for ${DAYS} simulated
days; the engine runs its hourly housekeeping (retention's deletes; on PGlite its VACUUM) when its clock says an hour has
passed; on PostgreSQL the stand-in \`VACUUM\` runs at every simulated hour boundary. Store size (tables and indexes) and
rows of check history, at the end of the day:

${table(['day', ...results.flatMap(([kind]) => [`${STORE_LABELS[kind]} size`, `${STORE_LABELS[kind]} history rows`])], curve)}

${table(['store', `growth per check, days 2–${1 + span}`, `growth per check, days ${DAYS - span + 1}–${DAYS}`, 'flat from (within 1 % after)', 'largest size', 'final size', 'checks', 'seconds', 'stand-in VACUUM: longest / all'], summary)}
${
  byTable.length > 0
    ? `
By table (with its indexes and TOAST), at the retention horizon (day ${RETENTION_DAYS}) and at the end (day ${DAYS}):

${table(['store', 'table', `day ${RETENTION_DAYS}`, `day ${DAYS}`], byTable)}
`
    : ''
}
Extrapolation, arithmetic and not measured: ${FULL_MONITORS.toLocaleString('en-US')} monitors at ${FULL_INTERVAL} minutes, with the growth per check of
days 2–${1 + span} above, kept for ${RETENTION_DAYS} days (checks/day × bytes per check × retention days):

${extrapolation.join('\n')}`;
}

const kinds = (await postgresAvailable()) ? STORES : STORES.filter((k) => k === 'pglite');
const server = await startPageServer({ ports: CONCURRENCY / 2, changeSeconds: 1_000_000_000 });
try {
  const sections: string[] = [];
  if (PHASES.includes('hours')) {
    const results: [StoreKind, HourGrowth][] = [];
    for (const kind of kinds) {
      const g = await hours(kind, server.bases);
      console.log(STORE_LABELS[kind], g);
      results.push([kind, g]);
    }
    sections.push(hoursReport(results));
  }
  if (PHASES.includes('days')) {
    const results: [StoreKind, DayGrowth][] = [];
    for (const kind of kinds) {
      const g = await days(kind, server.bases);
      console.log(STORE_LABELS[kind], `${g.seconds} s, daily sizes:`, JSON.stringify(g.samples.map((x) => x.bytes)));
      results.push([kind, g]);
    }
    sections.push(daysReport(results));
  }
  publish(
    'store-growth',
    `## 6. Store growth of unchanged checks

${sections.join('\n\n')}

PostgreSQL's autovacuum runs on real time (it looks every minute) and simulated hours pass here in real seconds, so on its
own it would hardly run at all. At every simulated hour boundary on PostgreSQL the benchmark runs a plain \`VACUUM\` (not
FULL, outside a transaction) of the benchmark schema's tables, standing for what autovacuum does in a real hour; the
product does not run it. For the small, hot tables (check_state, check_leases) autovacuum would do at least that; for a
large table it waits until 20 % of its rows are dead (autovacuum_vacuum_scale_factor), so a real check history could carry
up to that much more dead space than this stand-in leaves. On PGlite, which has no autovacuum, the shipped hourly
housekeeping vacuums.

Re-run: \`node bin/run-ts.js bench/store-growth.bench.ts\` (BENCH_GROWTH_PHASES, BENCH_GROWTH_MONITORS, BENCH_GROWTH_HOURS,
BENCH_GROWTH_DAY_MONITORS, BENCH_GROWTH_DAY_INTERVAL, BENCH_GROWTH_DAYS, BENCH_GROWTH_STORES).`,
  );
} finally {
  await server.close();
}
