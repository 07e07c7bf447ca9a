import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';

/**
 * Writes to `out` the data directory that `fill` leaves in a new directory, as
 * a tarball PGlite starts from (dumpDataDir); the directory is removed after.
 */
export async function writeStoreSnapshot(out: string, fill: (dataDir: string) => Promise<void>): Promise<void> {
  const parent = mkdtempSync(join(tmpdir(), 'pw-snapshot-'));
  try {
    const dataDir = join(parent, 'data');
    await fill(dataDir);
    const pg = new PGlite(dataDir);
    await pg.waitReady;
    const dump = await pg.dumpDataDir('none');
    await pg.close();
    writeFileSync(out, new Uint8Array(await dump.arrayBuffer()));
  } finally {
    rmSync(parent, { recursive: true, force: true });
  }
}
