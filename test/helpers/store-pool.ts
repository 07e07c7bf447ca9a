import type { Database } from '../../src/store/database.ts';

// A process's embedded test stores are used again: opening one from the run's
// migrated snapshot costs its own thread, PGlite's start and the snapshot's
// files (~0.4 CPU-s); emptying a used one costs a tenth of that
// (docs/decisions/0073). A store closed by its test is handed to the next
// test of the process only when it is, by every measure here, as the snapshot
// left it: the same schema (tables, columns, constraints, indexes, triggers,
// functions, applied migrations, schemas, roles, extensions), every table
// empty but the ones the migrations filled (their rows written back),
// sequences restarted, settings, session locks, temporary tables and activity
// statistics reset (not its session's prepared statements: openTestDatabase's
// `pooled: false` is for a test of their plans). A store in doubt (a schema
// changed, a statement still running when it was closed, a reset that failed)
// is closed for good.

/** Every part of the store's schema a test could change, as one hash. */
const FINGERPRINT = `
SELECT md5(string_agg(item, E'\\n' ORDER BY item)) AS fingerprint FROM (
  SELECT 'rel ' || relname || ' ' || relkind::text FROM pg_class WHERE relnamespace = current_schema()::regnamespace
  UNION ALL
  SELECT 'col ' || c.relname || '.' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod) || ' ' || a.attnotnull::text || ' '
         || coalesce(pg_get_expr(d.adbin, d.adrelid), '')
    FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
    LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
   WHERE c.relnamespace = current_schema()::regnamespace AND a.attnum > 0 AND NOT a.attisdropped
  UNION ALL
  SELECT 'con ' || conname || ' ' || pg_get_constraintdef(oid) FROM pg_constraint WHERE connamespace = current_schema()::regnamespace
  UNION ALL
  SELECT 'idx ' || indexdef FROM pg_indexes WHERE schemaname = current_schema()
  UNION ALL
  SELECT 'trg ' || t.tgenabled::text || ' ' || pg_get_triggerdef(t.oid)
    FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
   WHERE c.relnamespace = current_schema()::regnamespace AND NOT t.tgisinternal
  UNION ALL
  SELECT 'fn ' || md5(pg_get_functiondef(oid)) FROM pg_proc WHERE pronamespace = current_schema()::regnamespace AND prokind = 'f'
  UNION ALL
  SELECT 'ns ' || nspname FROM pg_namespace WHERE nspname NOT LIKE 'pg\\_temp\\_%' AND nspname NOT LIKE 'pg\\_toast\\_temp\\_%'
  UNION ALL
  SELECT 'role ' || rolname FROM pg_roles
  UNION ALL
  SELECT 'ext ' || extname || ' ' || extversion FROM pg_extension
  UNION ALL
  SELECT 'mig ' || version || ' ' || name || ' ' || coalesce(checksum, '') FROM schema_migrations
) items(item)`;

/** What a fresh store of the pool looks like: compared with and written back on every reset. */
interface FreshStore {
  fingerprint: string;
  /** the schema's tables but schema_migrations, quoted */
  tables: string[];
  /** the rows the migrations wrote (table → rows as JSON), written back after the tables are emptied */
  seeds: Map<string, string>;
}

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

async function fingerprintOf(db: Database): Promise<string> {
  return (await db.query<{ fingerprint: string }>(FINGERPRINT))[0]!.fingerprint;
}

async function describeFresh(db: Database): Promise<FreshStore> {
  const names = await db.query<{ tablename: string }>(
    "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() AND tablename <> 'schema_migrations' ORDER BY 1",
  );
  const tables = names.map((r) => quote(r.tablename));
  const seeds = new Map<string, string>();
  for (const table of tables) {
    const [row] = await db.query<{ rows: string | null }>(`SELECT json_agg(t)::text AS rows FROM ${table} t`);
    if (row!.rows !== null) seeds.set(table, row!.rows);
  }
  return { fingerprint: await fingerprintOf(db), tables, seeds };
}

/** Empties a used store back to `fresh`; false when it is not the same store any more (its schema changed). */
async function reset(db: Database, fresh: FreshStore): Promise<boolean> {
  await db.exec('RESET ALL; SELECT pg_advisory_unlock_all(); DISCARD TEMP');
  if ((await fingerprintOf(db)) !== fresh.fingerprint) return false;
  const used = await db.query<{ name: string }>(
    fresh.tables.map((t) => `SELECT '${t.replaceAll("'", "''")}' AS name WHERE EXISTS (SELECT 1 FROM ${t})`).join(' UNION ALL '),
  );
  const emptied = new Set([...used.map((r) => r.name), ...fresh.seeds.keys()]);
  if (emptied.size > 0) await db.exec(`TRUNCATE ${[...emptied].join(', ')} CASCADE`);
  for (const [table, rows] of fresh.seeds) {
    await db.query(`INSERT INTO ${table} SELECT * FROM json_populate_recordset(NULL::${table}, $1::json)`, [rows]);
  }
  await db.query(
    "SELECT setval(format('%I.%I', schemaname, sequencename), start_value, false) FROM pg_sequences WHERE schemaname = current_schema()",
  );
  await db.query('SELECT pg_stat_reset()');
  return true;
}

export interface StorePool {
  /** A store as fresh from the snapshot: an idle one emptied before, else a new one. */
  take(): Promise<Database>;
}

/** A pool of stores opened by `open`, at most `maxIdle` of them kept between tests. */
export function storePool(open: () => Promise<Database>, maxIdle = 2): StorePool {
  const idle: Database[] = [];
  let fresh: Promise<FreshStore> | null = null;

  const giveBack = async (db: Database, settled: boolean): Promise<void> => {
    const clean = settled && idle.length < maxIdle && (await reset(db, await fresh!).catch(() => false));
    if (clean) idle.push(db);
    else await db.close();
  };

  return {
    async take() {
      const db = idle.pop() ?? (await open());
      fresh ??= describeFresh(db);
      await fresh;
      return lease(db, (settled) => giveBack(db, settled));
    },
  };
}

/**
 * The test's handle on a pooled store: as the store itself until closed, then
 * refusing every call as a closed store does. Closing hands the store back,
 * telling whether anything the test began on it was still running.
 */
function lease(db: Database, giveBack: (settled: boolean) => Promise<void>): Database {
  let closed = false;
  let running = 0;
  const unsubscribes = new Set<() => Promise<void>>();
  const track = async <T>(work: () => Promise<T>): Promise<T> => {
    if (closed) throw new Error('the embedded database is closed');
    running++;
    try {
      return await work();
    } finally {
      running--;
    }
  };
  const handle: Database = {
    kind: db.kind,
    query: (sql, params) => track(() => db.query(sql, params)),
    exec: (sql) => track(() => db.exec(sql)),
    transaction: (fn) => track(() => db.transaction(fn)),
    transact: (procedure, input) => track(() => db.transact(procedure, input)),
    listen: (channel, onMessage, onReset) =>
      track(async () => {
        const unsubscribe = await db.listen(channel, onMessage, onReset);
        const once = async () => {
          if (unsubscribes.delete(once)) await unsubscribe();
        };
        unsubscribes.add(once);
        return once;
      }),
    async close() {
      if (closed) return;
      closed = true;
      const settled = running === 0;
      for (const unsubscribe of [...unsubscribes]) await unsubscribe().catch(() => undefined);
      await giveBack(settled);
    },
  };
  if (db.dumpDataDir) handle.dumpDataDir = () => track(() => db.dumpDataDir!());
  return handle;
}
