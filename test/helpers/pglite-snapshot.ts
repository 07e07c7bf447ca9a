import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { openDatabase } from '../../src/store/open-database.ts';

// Run once by scripts/run-tests.js before the suite on the embedded store:
// creates and migrates one store and writes its data directory as a tarball
// to the path given, from which every test file's in-memory store starts
// (creating a PGlite database costs far more than copying one).

const out = process.argv[2];
if (!out) throw new Error('usage: pglite-snapshot.ts <output file>');
const parent = mkdtempSync(join(tmpdir(), 'pw-snapshot-'));
try {
  const dataDir = join(parent, 'data');
  const db = await openDatabase({ databaseUrl: null, dataDir });
  await db.close();
  const pg = new PGlite(dataDir);
  await pg.waitReady;
  const dump = await pg.dumpDataDir('none');
  await pg.close();
  writeFileSync(out, new Uint8Array(await dump.arrayBuffer()));
} finally {
  rmSync(parent, { recursive: true, force: true });
}
