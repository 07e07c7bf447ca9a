import { readFileSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { openDatabase } from '../../src/store/open-database.ts';
import { unpackStoreTemplate } from '../../src/store/store-template.ts';
import { useTempDataDirs } from './temp-dirs.ts';

// scripts/run-tests.js creates one embedded store per run, migrated, and one
// with no schema, and names their data directories, as PGlite's dumpDataDir
// writes them, here: test stores start from a copy instead of creating their
// own (initdb costs seconds). A file run on its own creates its stores afresh.

/** Reads the snapshot the variable names, once, when it is first asked for; undefined where none is named. */
function snapshotFrom(variable: string): () => Uint8Array<ArrayBuffer> | undefined {
  const path = process.env[variable] || null;
  let snapshot: Uint8Array<ArrayBuffer> | undefined;
  return () => {
    if (path) snapshot ??= new Uint8Array(readFileSync(path));
    return snapshot;
  };
}

/** The run's migrated store, or undefined when the file runs on its own. */
export const migratedSnapshot = snapshotFrom('PAGEWATCH_TEST_PGLITE_SNAPSHOT');

/** The run's store with no schema at all (initdb'd, never migrated), or undefined when the file runs on its own. */
export const unmigratedSnapshot = snapshotFrom('PAGEWATCH_TEST_UNMIGRATED_SNAPSHOT');

/**
 * A migrated store's data directory as dumpDataDir writes it: the run's
 * snapshot, or, the file run on its own, a store made and migrated in `dataDir`.
 */
export async function migratedStoreDump(dataDir: string): Promise<Uint8Array<ArrayBuffer>> {
  const snapshot = migratedSnapshot();
  if (snapshot) return snapshot;
  await (await openDatabase({ databaseUrl: null, dataDir })).close();
  const pg = new PGlite(dataDir);
  await pg.waitReady;
  const dump = new Uint8Array(await (await pg.dumpDataDir('none')).arrayBuffer());
  await pg.close();
  return dump;
}

/**
 * Writes the run's migrated store (or the `start` given) into `dataDir` (which
 * holds none yet) and returns `dataDir`: what the build's template gives a new
 * data directory (store-template.ts), so a process started on it opens an
 * existing store. Without a snapshot the directory is left to the process to create.
 */
export function seedDataDir(dataDir: string, start = migratedSnapshot()): string {
  if (start) unpackStoreTemplate(start, dataDir);
  return dataDir;
}

/**
 * As useTempDataDirs, but each directory already holds the run's migrated,
 * empty embedded store (seedDataDir): a process started on it skips creating
 * and migrating a store, which took most of its start.
 */
export function useMigratedDataDirs(prefix: string): () => string {
  const newDataDir = useTempDataDirs(prefix);
  return () => seedDataDir(newDataDir());
}
