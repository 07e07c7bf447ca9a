import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import type { Database } from '../../src/store/database.ts';
import { openDatabase } from '../../src/store/open-database.ts';

// Each test file gets a fresh isolated database: PGlite in memory, or, when
// TEST_DATABASE_URL is set, a fresh schema on that PostgreSQL server.

export const testDatabaseUrl = process.env.TEST_DATABASE_URL || null;

// scripts/run-tests.js migrates one embedded store per run and names its
// snapshot here; a file run on its own creates its store afresh.
const snapshotPath = process.env.PAGEWATCH_TEST_PGLITE_SNAPSHOT || null;
let snapshot: Uint8Array<ArrayBuffer> | undefined;

/** The run's migrated embedded store (PGlite's dumpDataDir output), when scripts/run-tests.js made one. */
export function migratedSnapshot(): Uint8Array<ArrayBuffer> | undefined {
  if (snapshotPath) snapshot ??= new Uint8Array(readFileSync(snapshotPath));
  return snapshot;
}

/** `migrate: false` opens the store with no schema at all (migration tests). */
export async function openTestDatabase(options: { migrate?: boolean } = {}): Promise<Database> {
  if (!testDatabaseUrl) {
    const start = options.migrate === false ? undefined : migratedSnapshot();
    return openDatabase({ databaseUrl: null, dataDir: null, migrate: options.migrate, snapshot: start });
  }
  const schema = `test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: testDatabaseUrl });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  const db = await openDatabase({ databaseUrl: testDatabaseUrl, dataDir: null, schema, migrate: options.migrate });
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
