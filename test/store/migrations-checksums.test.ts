import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { appendFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { listMigrations, migrate, MigrationMismatchError } from '../../src/store/migrate.ts';
import { migrationSet, withCurrentStore, withEmptyStore } from '../helpers/migration-sets.ts';
import { seedDataDir, unmigratedSnapshot } from '../helpers/migrated-snapshot.ts';
import { testDatabaseUrl } from '../helpers/test-database.ts';
import { useTempDataDirs } from '../helpers/temp-dirs.ts';
import { pagewatchArgs } from '../helpers/pagewatch-bin.ts';

// Migrations are immutable: a store remembers each applied file's checksum and
// is refused, unchanged, when this version's file of that number differs.

const dataDirs = useTempDataDirs('pw-migrate-');

test('a store whose applied migration differs from its file is refused, naming the file, and left unchanged', async () => {
  const edited = migrationSet(1000);
  try {
    // The store holds this version's migrations, as the copy in `edited` does before the edit.
    await withCurrentStore(async (db) => {
      appendFileSync(join(edited, '005_checks_changes.sql'), '\n-- edited after release\n');
      writeFileSync(join(edited, '099_later.sql'), 'CREATE TABLE later (id integer);');
      await assert.rejects(migrate(db, { dir: edited }), (err: unknown) => {
        assert.ok(err instanceof MigrationMismatchError);
        assert.match(err.message, /005_checks_changes\.sql/);
        return true;
      });
      const later = await db.query("SELECT 1 FROM schema_migrations WHERE name = '099_later.sql'");
      assert.equal(later.length, 0, 'nothing applied after the refusal');
    });
  } finally {
    rmSync(edited, { recursive: true, force: true });
  }
});

test('a store migrated by a newer version, with a migration this version lacks, is refused', async () => {
  const newer = migrationSet(1000);
  writeFileSync(join(newer, '999_from_the_future.sql'), 'CREATE TABLE from_the_future (id integer);');
  try {
    await withCurrentStore(async (db) => {
      await migrate(db, { dir: newer });
      await assert.rejects(migrate(db), /999_from_the_future\.sql.*does not have/);
    });
  } finally {
    rmSync(newer, { recursive: true, force: true });
  }
});

test('two migration files with one number are refused before anything is applied', async () => {
  const twice = migrationSet(1000);
  writeFileSync(join(twice, '005_also_five.sql'), 'CREATE TABLE also_five (id integer);');
  try {
    await withEmptyStore(async (db) => {
      await assert.rejects(migrate(db, { dir: twice }), /share the number 5/);
      const tables = await db.query("SELECT 1 FROM pg_tables WHERE tablename = 'schema_migrations' AND schemaname = current_schema()");
      assert.equal(tables.length, 0);
    });
  } finally {
    rmSync(twice, { recursive: true, force: true });
  }
});

test(
  'pagewatch migrate reports the migrations it applied, then that the schema is up to date',
  { skip: testDatabaseUrl !== null && 'the embedded store: a data directory' },
  () => {
    // a store with no schema yet: the run's unmigrated one where there is one, else the process creates it
    const env = { ...process.env, PAGEWATCH_DATA_DIR: seedDataDir(dataDirs(), unmigratedSnapshot()), DATABASE_URL: '', LOG_LEVEL: 'warn' };
    const first = spawnSync(process.execPath, pagewatchArgs(['migrate']), { env, encoding: 'utf8' });
    assert.equal(first.status, 0, first.stderr);
    assert.equal(
      first.stdout.trim(),
      `applied: ${listMigrations()
        .map((m) => m.name)
        .join(', ')}`,
    );
    const second = spawnSync(process.execPath, pagewatchArgs(['migrate']), { env, encoding: 'utf8' });
    assert.equal(second.status, 0, second.stderr);
    assert.equal(second.stdout.trim(), 'schema is up to date');
  },
);
