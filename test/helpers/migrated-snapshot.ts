import { readFileSync } from 'node:fs';
import { unpackStoreTemplate } from '../../src/store/store-template.ts';
import { useTempDataDirs } from './temp-dirs.ts';

// scripts/run-tests.js creates and migrates one embedded store per run and
// names its data directory, as PGlite's dumpDataDir writes it, here: test
// stores start from a copy instead of creating their own (initdb costs
// seconds). A file run on its own creates its stores afresh.

const snapshotPath = process.env.PAGEWATCH_TEST_PGLITE_SNAPSHOT || null;
let snapshot: Uint8Array<ArrayBuffer> | undefined;

/** The run's migrated store, or undefined when the file runs on its own. */
export function migratedSnapshot(): Uint8Array<ArrayBuffer> | undefined {
  if (snapshotPath) snapshot ??= new Uint8Array(readFileSync(snapshotPath));
  return snapshot;
}

/**
 * Writes the run's migrated store into `dataDir` (which holds none yet) and
 * returns `dataDir`: what the build's template gives a new data directory
 * (store-template.ts), so a process started on it opens an existing store.
 * Without a snapshot the directory is left to the process to create.
 */
export function seedDataDir(dataDir: string): string {
  const start = migratedSnapshot();
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
