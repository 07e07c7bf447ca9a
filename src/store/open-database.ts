import type { Database } from './database.ts';
import { openPgliteThreadDatabase } from './pglite-thread-database.ts';
import { openPostgresDatabase } from './postgres-database.ts';
import { migrate } from './migrate.ts';

export interface StoreLocation {
  /** PostgreSQL connection string; when null the embedded PGlite store is used */
  databaseUrl: string | null;
  /** PGlite data directory; null keeps PGlite in memory (tests) */
  dataDir: string | null;
  /** PostgreSQL schema (tests) */
  schema?: string;
  /**
   * the in-memory embedded store's starting data directory (PGlite's
   * dumpDataDir output) instead of a new one: the test suite migrates one
   * store per run and starts every file from its snapshot
   */
  snapshot?: Uint8Array<ArrayBuffer>;
  /** the embedded store's shared buffers in MiB (PAGEWATCH_PGLITE_SHARED_BUFFERS_MB); default sized for the store (pglite-memory.ts) */
  pgliteSharedBuffersMiB?: number | null;
  /** bring the schema up to date on opening (default true); `pagewatch migrate` opens without, to report what it applies */
  migrate?: boolean;
}

/** Opens the configured store and, unless told not to, brings its schema up to date. */
export async function openDatabase(location: StoreLocation): Promise<Database> {
  const db = location.databaseUrl
    ? await openPostgresDatabase({ connectionString: location.databaseUrl, schema: location.schema })
    : await openPgliteThreadDatabase(location.dataDir, location.snapshot ?? null, { sharedBuffersMiB: location.pgliteSharedBuffersMiB });
  if (location.migrate === false) return db;
  try {
    await migrate(db);
  } catch (err) {
    await db.close();
    throw err;
  }
  return db;
}
