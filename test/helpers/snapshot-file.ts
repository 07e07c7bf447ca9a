import { closeSync, mkdtempSync, openSync, readdirSync, readSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';

// Every in-memory test store is loaded from this snapshot, and loading it
// costs by its size: most of a fresh cluster is two template databases no
// test store reads and a WAL segment of zeros, which made each store's start
// more than twice as dear (docs/decisions/0066-test-stores-start-from-a-lean-snapshot.md).

const WAL_PAGE = 8192;

/**
 * Ends the WAL segment the migrations filled and checkpoints in a new one, so
 * the server needs no earlier segment; returns that segment's file name and
 * the OIDs of the template databases (CREATE DATABASE copies them, and no
 * test store creates one).
 */
async function checkpointAlone(dataDir: string): Promise<{ segment: string; templates: number[] }> {
  const pg = new PGlite(dataDir);
  try {
    await pg.query('SELECT pg_switch_wal()');
    await pg.query('CHECKPOINT');
    const [{ segment }] = (await pg.query<{ segment: string }>('SELECT pg_walfile_name(redo_lsn) AS segment FROM pg_control_checkpoint()'))
      .rows as [{ segment: string }];
    const { rows } = await pg.query<{ oid: number }>('SELECT oid::int AS oid FROM pg_database WHERE datistemplate');
    return { segment, templates: rows.map((r) => r.oid) };
  } finally {
    await pg.close();
  }
}

/** How many bytes of the file hold anything but the zeros a WAL segment is created with, in whole WAL pages. */
function writtenLength(path: string): number {
  const size = statSync(path).size;
  const fd = openSync(path, 'r');
  try {
    const page = new Uint8Array(WAL_PAGE);
    for (let end = size; end > 0; end -= WAL_PAGE) {
      const start = Math.max(0, end - WAL_PAGE);
      const read = readSync(fd, page, 0, end - start, start);
      if (page.subarray(0, read).some((byte) => byte !== 0)) return Math.ceil(end / WAL_PAGE) * WAL_PAGE;
    }
    return 0;
  } finally {
    closeSync(fd);
  }
}

/**
 * Leaves out of a data directory what no test store reads: the template
 * databases, every WAL segment but the last checkpoint's, and that segment's
 * unwritten tail (the server reads a short segment's end as the end of the
 * WAL, and writes on past it).
 */
async function makeLean(dataDir: string): Promise<void> {
  const { segment, templates } = await checkpointAlone(dataDir);
  for (const oid of templates) rmSync(join(dataDir, 'base', String(oid)), { recursive: true, force: true });
  const wal = join(dataDir, 'pg_wal');
  for (const name of readdirSync(wal).filter((name) => /^[0-9A-F]{24}$/.test(name))) {
    const path = join(wal, name);
    if (name === segment) truncateSync(path, writtenLength(path));
    else rmSync(path);
  }
}

/**
 * Writes to `out` the data directory that `fill` leaves in a new directory,
 * made lean, as a tarball PGlite starts from (dumpDataDir); the directory is
 * removed after. The dump is taken by a server started on the lean directory.
 */
export async function writeStoreSnapshot(out: string, fill: (dataDir: string) => Promise<void>): Promise<void> {
  const parent = mkdtempSync(join(tmpdir(), 'pw-snapshot-'));
  try {
    const dataDir = join(parent, 'data');
    await fill(dataDir);
    await makeLean(dataDir);
    const pg = new PGlite(dataDir);
    await pg.waitReady;
    const dump = await pg.dumpDataDir('none');
    await pg.close();
    writeFileSync(out, new Uint8Array(await dump.arrayBuffer()));
  } finally {
    rmSync(parent, { recursive: true, force: true });
  }
}
