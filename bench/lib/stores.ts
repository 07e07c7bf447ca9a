import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { Database } from '../../src/store/database.ts';
import { migrate } from '../../src/store/migrate.ts';
import { openDatabase } from '../../src/store/open-database.ts';
import { openPgliteEventLoopStore } from './pglite-event-loop-store.ts';

// The two stores a benchmark compares: PGlite in a fresh temporary data
// directory, and PostgreSQL in a fresh schema (BENCH_DATABASE_URL). Both are
// removed when the benchmark closes them.

/** pglite-loop: PGlite on the benchmark's event loop, as before it moved to a worker thread (the before/after figure) */
export type StoreKind = 'pglite' | 'pglite-loop' | 'postgres';

export const POSTGRES_URL = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';

export interface BenchStore {
  kind: StoreKind;
  label: string;
  db: Database;
  /** for child processes (DATABASE_URL) on PostgreSQL: the server URL with the schema as search_path */
  databaseUrl: string | null;
  /** on PostgreSQL: the pids of the server backends serving this store's own connections; null for an embedded store */
  serverPids: (() => Promise<number[]>) | null;
  /** tables and indexes of the store, in bytes */
  sizeBytes(): Promise<number>;
  close(): Promise<void>;
}

export const STORE_LABELS: Record<StoreKind, string> = {
  pglite: 'PGlite (embedded)',
  'pglite-loop': 'PGlite on the event loop (before)',
  postgres: 'PostgreSQL',
};

export async function postgresAvailable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
}

async function onPostgres(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

// Relations of the current schema (search_path), so both stores are measured alike.
const SIZE_SQL = `SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint AS bytes
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'm')`;

const TABLE_SIZES = `SELECT c.relname AS name, pg_total_relation_size(c.oid)::bigint AS bytes
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE n.nspname = current_schema() AND c.relname = ANY($1::text[])`;

/** The size of each of `tables` (its indexes and TOAST included), by name. */
export async function tableSizes(db: Database, tables: readonly string[]): Promise<Map<string, number>> {
  const rows = await db.query<{ name: string; bytes: number }>(TABLE_SIZES, [tables]);
  return new Map(rows.map((r) => [r.name, Number(r.bytes)]));
}

export async function openBenchStore(kind: StoreKind): Promise<BenchStore> {
  const sizeOf = async (db: Database) => Number((await db.query<{ bytes: number }>(SIZE_SQL))[0]!.bytes);
  if (kind !== 'postgres') {
    const dir = mkdtempSync(join(tmpdir(), 'pagewatch-bench-'));
    const db = kind === 'pglite' ? await openDatabase({ databaseUrl: null, dataDir: dir }) : await openPgliteEventLoopStore(dir);
    if (kind === 'pglite-loop') await migrate(db);
    return {
      kind,
      label: STORE_LABELS[kind],
      db,
      databaseUrl: null,
      serverPids: null,
      sizeBytes: () => sizeOf(db),
      async close() {
        await db.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const schema = `bench_${randomBytes(6).toString('hex')}`;
  await onPostgres(`CREATE SCHEMA ${schema}`);
  // Its connections named after the schema, so their backends can be told from other sessions' in pg_stat_activity.
  const applicationName = `pagewatch-${schema}`;
  const named = new URL(POSTGRES_URL);
  named.searchParams.set('application_name', applicationName);
  const db = await openDatabase({ databaseUrl: named.toString(), dataDir: null, schema });
  const url = new URL(POSTGRES_URL);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    kind,
    label: STORE_LABELS[kind],
    db,
    databaseUrl: url.toString(),
    async serverPids() {
      const rows = await db.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE application_name = $1', [applicationName]);
      return rows.map((r) => r.pid);
    },
    sizeBytes: () => sizeOf(db),
    async close() {
      await db.close();
      await onPostgres(`DROP SCHEMA ${schema} CASCADE`);
    },
  };
}
