import { test } from 'node:test';
import assert from 'node:assert/strict';
import { migrate } from '../../src/store/migrate.ts';
import { openDatabase } from '../../src/store/open-database.ts';
import { migratedStoreDump } from '../helpers/migrated-snapshot.ts';
import { useTempDataDirs } from '../helpers/temp-dirs.ts';

// An in-memory embedded store can start from a snapshot of a data directory
// (the test suite migrates one store per run and starts each file from it).

const dataDirs = useTempDataDirs('pw-snapshot-test-');

test('stores started from one snapshot hold its schema, need no migration, and do not share writes', async () => {
  const snapshot = await migratedStoreDump(dataDirs());
  const first = await openDatabase({ databaseUrl: null, dataDir: null, snapshot, migrate: false });
  const second = await openDatabase({ databaseUrl: null, dataDir: null, snapshot, migrate: false });
  try {
    assert.deepEqual(await migrate(first), [], 'already migrated');
    assert.deepEqual(await first.query('SELECT open FROM api_status'), [{ open: true }]);
    await first.query('UPDATE api_status SET open = false');
    assert.deepEqual(await second.query('SELECT open FROM api_status'), [{ open: true }], 'the other store is untouched');
  } finally {
    await first.close();
    await second.close();
  }
});

test('a snapshot starts an in-memory store only', async () => {
  await assert.rejects(openDatabase({ databaseUrl: null, dataDir: dataDirs(), snapshot: new Uint8Array(0) }), /in-memory store only/);
});
