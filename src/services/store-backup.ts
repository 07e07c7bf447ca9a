import { AppError } from '../errors.ts';
import type { Clock } from '../clock.ts';
import type { Database } from '../store/database.ts';
import { encodeBackup } from '../store/backup-file.ts';

/**
 * A backup file of the embedded store, taken while it runs (store/backup-file.ts
 * has the format). PostgreSQL is backed up with its own tools (pg_dump).
 */
export async function takeBackup(db: Database, clock: Clock): Promise<Buffer> {
  if (!db.dumpDataDir) {
    throw new AppError('backup_unsupported', 'this server runs on PostgreSQL: back it up with pg_dump (docs/operations.md, Backups)');
  }
  const createdAt = clock.now();
  const migrations = await db.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY version');
  const dump = await db.dumpDataDir();
  return encodeBackup({ tarball: dump.tarball, heldMs: dump.heldMs, migrations: migrations.map((m) => m.name), createdAt });
}
