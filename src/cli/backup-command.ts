import { closeSync, existsSync, openSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config.ts';
import { systemClock } from '../clock.ts';
import { AppError } from '../errors.ts';
import { BackupFileError, decodeBackup } from '../store/backup-file.ts';
import { DataDirLockedError, lockDataDir } from '../store/data-dir-lock.ts';
import { openDatabase } from '../store/open-database.ts';
import { restoreBackup } from '../store/restore-backup.ts';
import { takeBackup } from '../services/store-backup.ts';
import { adminDownload, AdminRequestError, ServerUnreachableError } from './admin-client.ts';
import { describeRefusal } from './refusal-in-flags.ts';

// `pagewatch backup FILE` and `pagewatch restore FILE` for the embedded store
// (docs/operations.md, Backups). A running server holds the data directory, so
// a backup then goes through its operator API; a stopped one is opened here.

const POSTGRES_BACKUP =
  'the store is PostgreSQL (DATABASE_URL): back it up with pg_dump and restore it with pg_restore (docs/operations.md, Backups)';

/** A refusal worded for the operator: printed as one line, exit status 1. */
class CommandRefusal extends Error {}

async function backupBytes(config: Config, env: Record<string, string | undefined>): Promise<Buffer> {
  let lock;
  try {
    lock = lockDataDir(config.dataDir);
  } catch (err) {
    if (!(err instanceof DataDirLockedError)) throw err;
    const token = env.PAGEWATCH_ADMIN_TOKEN;
    if (!token)
      throw new CommandRefusal(
        `a running server holds ${config.dataDir}: set PAGEWATCH_ADMIN_TOKEN (and PAGEWATCH_URL) to back it up through it`,
      );
    return adminDownload({ baseUrl: env.PAGEWATCH_URL || 'http://127.0.0.1:8080', token }, '/backup');
  }
  // Nothing runs on the store: open it here, as it is (no migration).
  lock.release();
  const db = await openDatabase({ databaseUrl: null, dataDir: config.dataDir, migrate: false });
  try {
    return await takeBackup(db, systemClock);
  } finally {
    await db.close();
  }
}

export async function backupCommand(file: string | undefined, config: Config, env: Record<string, string | undefined>): Promise<number> {
  if (!file) return usage('usage: pagewatch backup FILE');
  if (config.databaseUrl) return refuse(POSTGRES_BACKUP);
  if (existsSync(file)) return refuse(`${file} exists: a backup is never written over a file`);
  if (!existsSync(join(config.dataDir, 'PG_VERSION')))
    return refuse(`there is no embedded store in ${config.dataDir} (PAGEWATCH_DATA_DIR)`);
  const partial = `${file}.partial`;
  // Only a partial file this run created is removed on failure: another may be another backup's, still being written.
  let ownsPartial = false;
  try {
    const bytes = await backupBytes(config, env);
    // Checked as restore will check it, before the file is there to be relied on.
    const { header } = await decodeBackup(bytes);
    const fd = openNewPartial(partial, file);
    ownsPartial = true;
    try {
      writeFileSync(fd, bytes);
    } finally {
      closeSync(fd);
    }
    renameSync(partial, file);
    ownsPartial = false;
    console.log(
      `backup written to ${file}: ${bytes.length} bytes, schema ${header.migrations.at(-1) ?? '(none)'}; ` +
        `the store was held still for ${header.held_ms} ms`,
    );
    return 0;
  } catch (err) {
    if (ownsPartial) rmSync(partial, { force: true });
    return refuseError(err);
  }
}

/** Opens FILE.partial, which must not exist yet: one there is another backup's, running or killed mid-write. */
function openNewPartial(partial: string, file: string): number {
  try {
    return openSync(partial, 'wx');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    throw new CommandRefusal(
      `${partial} exists: another backup of ${file} is being written, or one was killed while writing it — ` +
        'if none is running, remove it and back up again',
    );
  }
}

export async function restoreCommand(file: string | undefined, config: Config): Promise<number> {
  if (!file) return usage('usage: pagewatch restore FILE   (into PAGEWATCH_DATA_DIR, which must be empty)');
  if (config.databaseUrl) return refuse(POSTGRES_BACKUP);
  if (!existsSync(file)) return refuse(`${file} does not exist`);
  try {
    const result = await restoreBackup(config.dataDir, readFileSync(file));
    const rows = Object.entries(result.rows).map(([table, n]) => `  ${table}: ${n}`);
    console.log(
      [
        `restored ${file} into ${config.dataDir}`,
        result.applied.length ? `migrations applied on top: ${result.applied.join(', ')}` : 'schema as in the backup',
        'rows per table:',
        ...rows,
        result.problems.length === 0
          ? 'consistency: every foreign key holds, every monitor has its check state'
          : `consistency: ${result.problems.length} problem${result.problems.length === 1 ? '' : 's'}, the restored store is left for inspection:`,
        ...result.problems.map((p) => `  ${p}`),
      ].join('\n'),
    );
    return result.problems.length === 0 ? 0 : 1;
  } catch (err) {
    return refuseError(err);
  }
}

function usage(text: string): number {
  console.error(text);
  return 2;
}

function refuse(text: string): number {
  console.error(`pagewatch: ${text}`);
  return 1;
}

function refuseError(err: unknown): number {
  if (err instanceof AdminRequestError) return refuse(describeRefusal(err.status, err.body));
  const known = [CommandRefusal, BackupFileError, DataDirLockedError, ServerUnreachableError, AppError];
  if (known.some((type) => err instanceof type)) return refuse((err as Error).message);
  throw err;
}
