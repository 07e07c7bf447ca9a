import { copyFileSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Database } from '../../src/store/database.ts';
import { migrate } from '../../src/store/migrate.ts';
import { openTestDatabase } from './test-database.ts';

const CURRENT_DIR = new URL('../../src/store/migrations/', import.meta.url).pathname;
export const RETIRED_DIR = new URL('../fixtures/retired-migrations/', import.meta.url).pathname;

/** A temporary folder holding the current migrations numbered below `below`, plus copies of `extra` files. */
export function migrationSet(below: number, extra: string[] = []): string {
  const dir = mkdtempSync(join(tmpdir(), 'pw-migrations-'));
  for (const name of readdirSync(CURRENT_DIR)) {
    if (Number(name.slice(0, 3)) < below) copyFileSync(join(CURRENT_DIR, name), join(dir, name));
  }
  for (const path of extra) copyFileSync(path, join(dir, path.split('/').pop()!));
  return dir;
}

/** Runs fn on a fresh store with no schema at all. */
export async function withEmptyStore(fn: (db: Database) => Promise<void>): Promise<void> {
  const db = await openTestDatabase({ migrate: false });
  try {
    await fn(db);
  } finally {
    await db.close();
  }
}

/** Runs fn on a fresh store migrated by this version's migrations (from the run's snapshot where there is one). */
export async function withCurrentStore(fn: (db: Database) => Promise<void>): Promise<void> {
  const db = await openTestDatabase();
  try {
    await fn(db);
  } finally {
    await db.close();
  }
}

/** A store migrated by the code before checksums were kept: its schema_migrations has no checksum column. */
export async function migrateAsOlderCode(db: Database, dir: string): Promise<void> {
  await migrate(db, { dir });
  await db.query('ALTER TABLE schema_migrations DROP COLUMN checksum');
}
