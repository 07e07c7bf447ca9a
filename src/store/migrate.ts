import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Database, Queryable } from './database.ts';

const MIGRATIONS_DIR = join(import.meta.dirname, 'migrations');
// Serialises migrations when several processes start against one PostgreSQL.
const MIGRATION_LOCK_KEY = 7_426_101;

/**
 * Files that once carried a number and were removed before that number got
 * its present file. A store that applied one of them applies the present file
 * of the number; migration 022 undoes what the removed ones left behind.
 */
const RETIRED_MIGRATIONS: ReadonlySet<string> = new Set(['021_set_based_admission.sql', '021_monitor_row_announcements.sql']);

export interface Migration {
  version: number;
  name: string;
  sql: string;
  /** SHA-256 of the file's bytes, kept in schema_migrations when applied */
  checksum: string;
}

interface AppliedRow {
  version: number;
  name: string;
  checksum: string | null;
}

/** A store whose applied migrations do not match this version's files: it is never changed. */
export class MigrationMismatchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MigrationMismatchError';
  }
}

export function listMigrations(dir: string = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir)
    .filter((f) => /^\d{3}_.+\.sql$/.test(f))
    .sort()
    .map((f) => {
      const bytes = readFileSync(join(dir, f));
      return {
        version: Number(f.slice(0, 3)),
        name: f,
        sql: bytes.toString('utf8'),
        checksum: createHash('sha256').update(bytes).digest('hex'),
      };
    });
}

export interface MigrateOptions {
  /** folder of numbered `NNN_name.sql` files; default: the store's own migrations */
  dir?: string;
}

/**
 * Brings the schema up to date: verifies every applied migration against its
 * file (refusing the store, unchanged, on any difference), then applies each
 * migration not applied yet in its own transaction. Returns the names applied.
 */
export async function migrate(db: Database, options: MigrateOptions = {}): Promise<string[]> {
  const migrations = listMigrations(options.dir);
  assertUniqueVersions(migrations);
  await db.query(
    'CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())',
  );
  await db.query('ALTER TABLE schema_migrations ADD COLUMN IF NOT EXISTS checksum text');
  const applied: string[] = [];
  await db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
    await verifyApplied(tx, migrations);
  });
  for (const migration of migrations) {
    const done = await db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
      const rows = await tx.query<{ name: string }>('SELECT name FROM schema_migrations WHERE version = $1', [migration.version]);
      const row = rows[0];
      if (row && !RETIRED_MIGRATIONS.has(row.name)) return false;
      if (row) await tx.query('DELETE FROM schema_migrations WHERE version = $1', [migration.version]);
      await tx.exec(migration.sql);
      await tx.query('INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)', [
        migration.version,
        migration.name,
        migration.checksum,
      ]);
      return true;
    });
    if (done) applied.push(migration.name);
  }
  return applied;
}

function assertUniqueVersions(migrations: Migration[]): void {
  const seen = new Map<number, string>();
  for (const m of migrations) {
    const other = seen.get(m.version);
    if (other) throw new MigrationMismatchError(`migrations ${other} and ${m.name} share the number ${m.version}`);
    seen.set(m.version, m.name);
  }
}

/**
 * Every applied migration must be this version's file of that number, byte for
 * byte. Rows applied before checksums were kept take the file's checksum when
 * the file name matches; a removed file's row (RETIRED_MIGRATIONS) is left for
 * migrate to replace.
 */
async function verifyApplied(tx: Queryable, migrations: Migration[]): Promise<void> {
  const byVersion = new Map(migrations.map((m) => [m.version, m]));
  const rows = await tx.query<AppliedRow>('SELECT version, name, checksum FROM schema_migrations ORDER BY version');
  for (const row of rows) {
    if (RETIRED_MIGRATIONS.has(row.name)) continue;
    const file = byVersion.get(row.version);
    if (!file) {
      throw new MigrationMismatchError(
        `the store has applied migration ${row.name}, which this version of pagewatch does not have (a store of a newer version?)`,
      );
    }
    if (file.name !== row.name) {
      throw new MigrationMismatchError(
        `the store applied ${row.name} as migration ${row.version}, but this version's migration ${row.version} is ${file.name}`,
      );
    }
    if (row.checksum === null) {
      await tx.query('UPDATE schema_migrations SET checksum = $2 WHERE version = $1', [row.version, file.checksum]);
    } else if (row.checksum !== file.checksum) {
      throw new MigrationMismatchError(
        `migration ${file.name} differs from the one the store applied (checksum ${row.checksum.slice(0, 12)}…, file ${file.checksum.slice(0, 12)}…): a migration file must never change once released`,
      );
    }
  }
}
