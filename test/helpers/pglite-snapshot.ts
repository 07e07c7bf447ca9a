import { openDatabase } from '../../src/store/open-database.ts';
import { writeStoreSnapshot } from './snapshot-file.ts';

// Run once by scripts/run-tests.js before the suite on the embedded store:
// creates and migrates one store and writes its data directory as a tarball
// to the path given, from which every test file's in-memory store starts
// (creating a PGlite database costs far more than copying one).

const out = process.argv[2];
if (!out) throw new Error('usage: pglite-snapshot.ts <output file>');
await writeStoreSnapshot(out, async (dataDir) => {
  await (await openDatabase({ databaseUrl: null, dataDir })).close();
});
