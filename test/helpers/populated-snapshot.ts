import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { openDatabase } from '../../src/store/open-database.ts';
import { seedDataDir } from './migrated-snapshot.ts';
import { populateStore } from './populated-store.ts';

// Run once by scripts/run-tests.js when PAGEWATCH_TEST_MOVED_STORE is set:
// the run's migrated embedded store, filled by populateStore, written as a
// tarball to the path given. Every PostgreSQL test schema of that run is
// then filled by moving this store into it (test-database.ts).

const out = process.argv[2];
if (!out) throw new Error('usage: populated-snapshot.ts <output file>');
const parent = mkdtempSync(join(tmpdir(), 'pw-populated-'));
try {
  const dataDir = seedDataDir(join(parent, 'data'));
  const db = await openDatabase({ databaseUrl: null, dataDir });
  try {
    await populateStore(db);
  } finally {
    await db.close();
  }
  const pg = new PGlite(dataDir);
  await pg.waitReady;
  const dump = await pg.dumpDataDir('none');
  await pg.close();
  writeFileSync(out, new Uint8Array(await dump.arrayBuffer()));
} finally {
  rmSync(parent, { recursive: true, force: true });
}
