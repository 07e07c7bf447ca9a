import { openDatabase } from '../../src/store/open-database.ts';
import { writeStoreSnapshot } from './snapshot-file.ts';

// Run by scripts/run-tests.js before the suite on the embedded store: creates
// one store and writes its data directory as a tarball to the path given, from
// which the test files' in-memory stores start (creating a PGlite database
// costs far more than copying one). Migrated, or with `unmigrated` after the
// path, with no schema at all (the migration tests' stores).

const [out, kind = 'migrated'] = process.argv.slice(2);
if (!out || !['migrated', 'unmigrated'].includes(kind)) throw new Error('usage: pglite-snapshot.ts <output file> [migrated|unmigrated]');
await writeStoreSnapshot(out, async (dataDir) => {
  await (await openDatabase({ databaseUrl: null, dataDir, migrate: kind === 'migrated' })).close();
});
