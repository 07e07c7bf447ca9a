import { openDatabase } from '../../src/store/open-database.ts';
import { seedDataDir } from './migrated-snapshot.ts';
import { populateStore } from './populated-store.ts';
import { writeStoreSnapshot } from './snapshot-file.ts';

// Run once by scripts/run-tests.js when PAGEWATCH_TEST_MOVED_STORE is set:
// the run's migrated embedded store, filled by populateStore, written as a
// tarball to the path given. Every PostgreSQL test schema of that run is
// then filled by moving this store into it (test-database.ts).

const out = process.argv[2];
if (!out) throw new Error('usage: populated-snapshot.ts <output file>');
await writeStoreSnapshot(out, async (dataDir) => {
  const db = await openDatabase({ databaseUrl: null, dataDir: seedDataDir(dataDir) });
  try {
    await populateStore(db);
  } finally {
    await db.close();
  }
});
