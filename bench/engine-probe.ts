import { performance } from 'node:perf_hooks';
import type { Database, Queryable } from '../src/store/database.ts';
import { benchEngine, benchLoaders } from './lib/engine.ts';
import { waitFor } from './lib/measure.ts';
import { startPageServer } from './lib/page-server.ts';
import { PRODUCT_TARGETS } from './lib/pages.ts';
import { createAccount, countCheckedSince, insertMonitors } from './lib/seed.ts';
import { openBenchStore, type StoreKind } from './lib/stores.ts';

// Not a benchmark of the list (npm run bench does not run it): the
// probe used to find and measure the engine fixes of docs/decisions/ (0001, 0002). N
// small product pages (3 targets), all due, checked by the engine; prints
// checks/s and, with PROBE_COUNT=1, the SQL statements per check.
//
//   PROBE_MONITORS     monitors (default 1500)
//   PROBE_CONCURRENCY  checks at once (default 16), on 8 ports
//   PROBE_STORE        pglite or postgres (default pglite)
//   PROBE_PASS         first (first captures: baselines written) or steady (a second pass over unchanged pages)
//   PROBE_COUNT        1: count statements (BEGIN and COMMIT count as one each)

const N = Number(process.env.PROBE_MONITORS ?? 1500);
const CONCURRENCY = Number(process.env.PROBE_CONCURRENCY ?? 16);
const STORE = (process.env.PROBE_STORE ?? 'pglite') as StoreKind;
const STEADY = process.env.PROBE_PASS === 'steady';
const counts = new Map<string, number>();

function counted(db: Database): Database {
  const note = (sql: string) => {
    const key = sql.replace(/\s+/g, ' ').trim().slice(0, 70);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  };
  const wrap = (q: Queryable): Queryable => ({ query: (sql, params) => (note(sql), q.query(sql, params)), exec: (sql) => q.exec(sql) });
  const transaction = <T>(fn: (tx: Queryable) => Promise<T>) => db.transaction((tx) => (note('BEGIN'), note('COMMIT'), fn(wrap(tx))));
  // Procedures run here, counted, rather than in the embedded store's thread.
  return { ...db, ...wrap(db), transaction, transact: (procedure, input) => transaction((tx) => procedure.run(tx, input)) };
}

/** One pass of the engine on `engineDb`, counted on `db` (so the probe's own polling is not counted). */
async function pass(
  db: Database,
  engineDb: Database,
  loaders: ReturnType<typeof benchLoaders>,
): Promise<{ done: number; seconds: number }> {
  const engine = benchEngine(engineDb, loaders, CONCURRENCY, 1);
  const since = new Date();
  const started = performance.now();
  engine.start();
  await waitFor(async () => (await countCheckedSince(db, since)) >= N, 120_000, 200);
  const seconds = (performance.now() - started) / 1000;
  await engine.stop();
  return { done: await countCheckedSince(db, since), seconds };
}

const server = await startPageServer({ ports: 8 });
const store = await openBenchStore(STORE);
const loaders = benchLoaders();
try {
  const accountId = await createAccount(store.db);
  const due = new Date(Date.now() - 1000);
  const monitors = Array.from({ length: N }, (_, n) => ({ url: `${server.bases[n % 8]}/small/${n}.html`, nextCheckAt: due }));
  await insertMonitors(store.db, { accountId, loadMode: 'html', intervalMinutes: 60, targets: PRODUCT_TARGETS, monitors });
  if (STEADY) {
    await pass(store.db, store.db, loaders);
    // Due again; last_checked_at cleared so that the overdue rule does not move them to their next slot.
    await store.db.query("UPDATE check_state SET next_check_at = now() - interval '1 second', last_checked_at = NULL");
  }
  const engineDb = process.env.PROBE_COUNT === '1' ? counted(store.db) : store.db;
  const { done, seconds } = await pass(store.db, engineDb, loaders);
  for (const [sql, n] of [...counts].sort((a, b) => b[1] - a[1])) console.log(`${(n / done).toFixed(2)}  ${sql}`);
  console.log(
    `${STORE}, ${STEADY ? 'steady state' : 'first captures'}: ${done} checks in ${seconds.toFixed(1)} s = ${(done / seconds).toFixed(1)} checks/s`,
  );
} finally {
  await loaders.close();
  await store.close();
  await server.close();
}
