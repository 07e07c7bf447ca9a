import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Database } from '../../src/store/database.ts';
import { openDatabase } from '../../src/store/open-database.ts';
import { testDatabaseUrl } from './test-database.ts';

// One fresh PostgreSQL schema shared by the test and the processes it starts:
// the schema travels inside DATABASE_URL as a search_path option, which
// node-postgres passes to the server at connect time.

export interface SharedSchema {
  /** DATABASE_URL for child processes */
  url: string;
  /** the test's own connection to the schema (migrated) */
  db: Database;
  drop(): Promise<void>;
}

export async function createSharedSchema(): Promise<SharedSchema> {
  if (!testDatabaseUrl) throw new Error('TEST_DATABASE_URL is not set');
  const base = testDatabaseUrl;
  const schema = `scale_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  const url = new URL(base);
  url.searchParams.set('options', `-c search_path=${schema}`);
  const db = await openDatabase({ databaseUrl: url.toString(), dataDir: null });
  return {
    url: url.toString(),
    db,
    async drop() {
      await db.close();
      const cleanup = new pg.Client({ connectionString: base });
      await cleanup.connect();
      await cleanup.query(`DROP SCHEMA ${schema} CASCADE`);
      await cleanup.end();
    },
  };
}
