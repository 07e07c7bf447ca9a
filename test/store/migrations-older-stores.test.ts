import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { listMigrations, migrate } from '../../src/store/migrate.ts';
import { migrateAsOlderCode, migrationSet, RETIRED_DIR, withEmptyStore } from '../helpers/migration-sets.ts';

// Stores migrated by older file sets open with the current code: number 021
// was used by two files removed before the present one took it.

for (const retired of ['021_set_based_admission.sql', '021_monitor_row_announcements.sql']) {
  test(`a store that applied the removed ${retired} gets the present 021 and loses what the removed file left`, async () => {
    const old = migrationSet(21, [join(RETIRED_DIR, retired)]);
    try {
      await withEmptyStore(async (db) => {
        await migrateAsOlderCode(db, old);
        const applied = await migrate(db);
        assert.deepEqual(
          applied,
          listMigrations()
            .filter((m) => m.version >= 21)
            .map((m) => m.name),
        );
        const [row] = await db.query<{ name: string }>('SELECT name FROM schema_migrations WHERE version = 21');
        assert.equal(row?.name, '021_check_history_statistics.sql');
        const [stats] = await db.query<{ target: number }>(
          "SELECT attstattarget::int AS target FROM pg_attribute WHERE attrelid = 'check_runs'::regclass AND attname = 'seq'",
        );
        assert.equal(stats?.target, 10, 'the present 021 ran');
        const triggers = await db.query(
          "SELECT 1 FROM pg_trigger WHERE tgname IN ('monitors_announce', 'check_state_announce', 'baselines_announce')",
        );
        assert.equal(triggers.length, 0, 'announcement triggers removed');
        const [fn] = await db.query<{ src: string }>("SELECT prosrc AS src FROM pg_proc WHERE proname = 'admit_api_requests'");
        assert.match(fn?.src ?? '', /w_start timestamptz;/, 'admit_api_requests has the body of migration 019');
        assert.doesNotMatch(fn?.src ?? '', /window_starts timestamptz\[\];/, 'not the set-based body');
      });
    } finally {
      rmSync(old, { recursive: true, force: true });
    }
  });
}

test('a store migrated before checksums were kept takes the files’ checksums and opens', async () => {
  const old = migrationSet(22);
  try {
    await withEmptyStore(async (db) => {
      await migrateAsOlderCode(db, old);
      await migrate(db);
      const rows = await db.query<{ name: string; checksum: string | null }>(
        'SELECT name, checksum FROM schema_migrations ORDER BY version',
      );
      const files = new Map(listMigrations().map((m) => [m.name, m.checksum]));
      assert.equal(rows.length, files.size);
      for (const row of rows) assert.equal(row.checksum, files.get(row.name), row.name);
    });
  } finally {
    rmSync(old, { recursive: true, force: true });
  }
});
