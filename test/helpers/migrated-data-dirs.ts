import { unpackStoreTemplate } from '../../src/store/store-template.ts';
import { useTempDataDirs } from './temp-dirs.ts';
import { migratedSnapshot } from './test-database.ts';

/**
 * As useTempDataDirs, but each directory already holds a migrated, empty
 * embedded store, unpacked from the run's snapshot as a built pagewatch
 * unpacks its store template (store-template.ts): a process started on it
 * skips creating a store (initdb) and migrating it, which took most of its
 * start. A file run on its own (no snapshot) gets a path with nothing there,
 * and pagewatch creates the store.
 */
export function useMigratedDataDirs(prefix: string): () => string {
  const newDataDir = useTempDataDirs(prefix);
  return () => {
    const dataDir = newDataDir();
    const snapshot = migratedSnapshot();
    if (snapshot) unpackStoreTemplate(snapshot, dataDir);
    return dataDir;
  };
}
