import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { directoryBytes, pgliteMemoryFor } from '../../src/store/pglite-memory.ts';
import { openPgliteThreadDatabase } from '../../src/store/pglite-thread-database.ts';
import { loadConfig } from '../../src/config.ts';
import { useTempDataDirs } from '../helpers/temp-dirs.ts';

// The embedded store's PostgreSQL memory is sized for the install (whatever
// TEST_DATABASE_URL says, this is the embedded store's own behaviour).

const freshDir = useTempDataDirs('pw-memory-');
const MiB = 1048576;

test('a small store gets 16 MiB of shared buffers and 8 MiB of maintenance memory', () => {
  assert.deepEqual(pgliteMemoryFor(0), { sharedBuffersMiB: 16, maintenanceWorkMemMiB: 8 });
  assert.deepEqual(pgliteMemoryFor(40 * MiB), { sharedBuffersMiB: 16, maintenanceWorkMemMiB: 8 });
});

test('shared buffers grow with the store, a quarter of its size, up to PostgreSQL default of 128 MiB', () => {
  assert.deepEqual(pgliteMemoryFor(200 * MiB), { sharedBuffersMiB: 50, maintenanceWorkMemMiB: 25 });
  assert.deepEqual(pgliteMemoryFor(4096 * MiB), { sharedBuffersMiB: 128, maintenanceWorkMemMiB: 64 });
});

test("the operator's PAGEWATCH_PGLITE_SHARED_BUFFERS_MB overrides the sizing", () => {
  assert.equal(loadConfig({ PAGEWATCH_PGLITE_SHARED_BUFFERS_MB: '256' }).pgliteSharedBuffersMiB, 256);
  assert.equal(loadConfig({}).pgliteSharedBuffersMiB, null);
  assert.deepEqual(pgliteMemoryFor(0, 256), { sharedBuffersMiB: 256, maintenanceWorkMemMiB: 128 });
  assert.throws(() => loadConfig({ PAGEWATCH_PGLITE_SHARED_BUFFERS_MB: '2' }), /between 8 and 4096/);
});

test("a store's size is the bytes of every file under its directory, 0 before it exists", () => {
  const dir = freshDir();
  assert.equal(directoryBytes(dir), 0);
  mkdirSync(join(dir, 'base', '1'), { recursive: true });
  writeFileSync(join(dir, 'PG_VERSION'), '17\n');
  writeFileSync(join(dir, 'base', '1', '1259'), Buffer.alloc(8192));
  assert.equal(directoryBytes(dir), 3 + 8192);
});

test('a new embedded store runs with the small sizes, and with the operator’s shared buffers when set', async () => {
  const dir = freshDir();
  const show = async (db: Awaited<ReturnType<typeof openPgliteThreadDatabase>>, name: string) =>
    Object.values((await db.query<Record<string, string>>(`SHOW ${name}`))[0]!)[0];
  const small = await openPgliteThreadDatabase(dir);
  try {
    assert.equal(await show(small, 'shared_buffers'), '16MB');
    assert.equal(await show(small, 'maintenance_work_mem'), '8MB');
    assert.equal(await show(small, 'work_mem'), '4MB', "PostgreSQL's own");
  } finally {
    await small.close();
  }
  const set = await openPgliteThreadDatabase(dir, null, { sharedBuffersMiB: 64 });
  try {
    assert.equal(await show(set, 'shared_buffers'), '64MB');
    assert.equal(await show(set, 'maintenance_work_mem'), '32MB');
  } finally {
    await set.close();
  }
});
