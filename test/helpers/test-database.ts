import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import type { Database } from '../../src/store/database.ts';
import { copyStore } from '../../src/store/copy-store.ts';
import { openDatabase } from '../../src/store/open-database.ts';
import { migratedSnapshot, unmigratedSnapshot } from './migrated-snapshot.ts';
import { storePool, type StorePool } from './store-pool.ts';

// Each test file gets a fresh isolated database: PGlite in memory (a store of
// the process's pool, emptied back to the migrated snapshot: store-pool.ts),
// or, when TEST_DATABASE_URL is set, a fresh schema on that PostgreSQL server.
// With PAGEWATCH_TEST_MOVED_STORE set, scripts/run-tests.js also makes a
// populated embedded store (populated-snapshot.ts) and names it here, in the
// API files' processes: each fresh schema is then filled by `pagewatch
// migrate-store`'s own copy of that store instead of by the migrations alone
// (issue #43).

export const testDatabaseUrl = process.env.TEST_DATABASE_URL || null;
const populatedSnapshotPath = process.env.PAGEWATCH_TEST_POPULATED_SNAPSHOT || null;
/** Whether this run's PostgreSQL test stores are moved, populated stores (PAGEWATCH_TEST_MOVED_STORE). */
const testStoreIsMoved = testDatabaseUrl !== null && populatedSnapshotPath !== null;

/** The moved store's schema: the populated embedded store copied in, as migrate-store copies it. */
async function moveInto(target: Database): Promise<void> {
  const snapshot = new Uint8Array(readFileSync(populatedSnapshotPath!));
  const source = await openDatabase({ databaseUrl: null, dataDir: null, snapshot });
  try {
    await copyStore(source, target);
  } finally {
    await source.close();
  }
}

let embeddedStores: StorePool | null = null;

/**
 * `migrate: false` opens the store with no schema at all (migration tests).
 * `pooled: false` opens an embedded store no earlier test used: the pool's
 * reset empties a store but leaves its session's prepared statements, and
 * with them the plan history PostgreSQL chooses their plans by (a test of
 * plan choice needs none). `moved: false` fills a PostgreSQL schema by the
 * migrations even where the run moves stores (a test that needs the tables
 * as the migrations leave them).
 */
export async function openTestDatabase(options: { migrate?: boolean; pooled?: boolean; moved?: boolean } = {}): Promise<Database> {
  if (!testDatabaseUrl) {
    if (options.migrate === false)
      return openDatabase({ databaseUrl: null, dataDir: null, snapshot: unmigratedSnapshot(), migrate: false });
    if (options.pooled === false) return openDatabase({ databaseUrl: null, dataDir: null, snapshot: migratedSnapshot() });
    embeddedStores ??= storePool(() => openDatabase({ databaseUrl: null, dataDir: null, snapshot: migratedSnapshot() }));
    return embeddedStores.take();
  }
  const schema = `test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: testDatabaseUrl });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  const move = testStoreIsMoved && options.migrate !== false && options.moved !== false;
  const db = await openDatabase({ databaseUrl: testDatabaseUrl, dataDir: null, schema, migrate: move ? false : options.migrate });
  if (move) await moveInto(db);
  return {
    ...db,
    async close() {
      await db.close();
      const cleanup = new pg.Client({ connectionString: testDatabaseUrl });
      await cleanup.connect();
      await cleanup.query(`DROP SCHEMA ${schema} CASCADE`);
      await cleanup.end();
    },
  };
}
