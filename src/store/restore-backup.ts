import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { BackupFileError, decodeBackup } from './backup-file.ts';
import { consistencyProblems } from './consistency-check.ts';
import { listMigrations } from './migrate.ts';
import { openDatabase } from './open-database.ts';
import { restorePgliteDataDir } from './pglite-thread-database.ts';
import { tableRowCounts } from './table-inventory.ts';

// `pagewatch restore FILE`: a backup into an empty data directory. The file is
// checked whole (format, checksum, schema) before anything is written, and a
// restore that fails after writing leaves the directory empty again. The
// restored store's consistency is checked and reported, not a reason to
// remove it: it may be the only copy there is.

export interface RestoreResult {
  /** the migrations this version applied on top of the backup's schema */
  applied: string[];
  /** rows per table in the restored store, read back through the store */
  rows: Record<string, number>;
  /** what the consistency check found wrong in the restored store; empty: nothing */
  problems: string[];
}

function assertEmptyDirectory(dataDir: string): void {
  if (existsSync(dataDir) && readdirSync(dataDir).length > 0) {
    throw new BackupFileError(`${dataDir} is not empty: restore writes into an empty data directory only, never over a store`);
  }
}

/** Every migration the backup's store applied must be one this version knows: a newer schema is refused. */
function assertKnownSchema(migrations: string[]): void {
  const known = new Set(listMigrations().map((m) => m.name));
  const unknown = migrations.filter((name) => !known.has(name));
  if (unknown.length > 0) {
    throw new BackupFileError(
      `the backup comes from a newer pagewatch (its schema has ${unknown.join(', ')}, which this version does not know): restore it with that version or a later one`,
    );
  }
}

export async function restoreBackup(dataDir: string, file: Buffer): Promise<RestoreResult> {
  const { header, tarball } = await decodeBackup(file);
  assertKnownSchema(header.migrations);
  assertEmptyDirectory(dataDir);
  try {
    await restorePgliteDataDir(dataDir, tarball);
    // Opening migrates: it verifies each applied migration and brings an older schema up to date.
    const db = await openDatabase({ databaseUrl: null, dataDir });
    try {
      const before = new Set(header.migrations);
      const migrations = await db.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY version');
      return {
        applied: migrations.map((m) => m.name).filter((name) => !before.has(name)),
        rows: await tableRowCounts(db),
        problems: await consistencyProblems(db),
      };
    } finally {
      await db.close();
    }
  } catch (err) {
    for (const entry of existsSync(dataDir) ? readdirSync(dataDir) : []) rmSync(join(dataDir, entry), { recursive: true, force: true });
    throw err;
  }
}
