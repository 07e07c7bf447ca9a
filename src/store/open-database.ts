import type { Database } from './database.ts';
import { openPgliteDatabase } from './pglite-database.ts';
import { openPostgresDatabase } from './postgres-database.ts';
import { migrate } from './migrate.ts';

export interface StoreLocation {
  /** PostgreSQL connection string; when null the embedded PGlite store is used */
  databaseUrl: string | null;
  /** PGlite data directory; null keeps PGlite in memory (tests) */
  dataDir: string | null;
  /** PostgreSQL schema (tests) */
  schema?: string;
}

/** Opens the configured store and brings its schema up to date. */
export async function openDatabase(location: StoreLocation): Promise<Database> {
  const db = location.databaseUrl
    ? await openPostgresDatabase({ connectionString: location.databaseUrl, schema: location.schema })
    : await openPgliteDatabase(location.dataDir);
  try {
    await migrate(db);
  } catch (err) {
    await db.close();
    throw err;
  }
  return db;
}
