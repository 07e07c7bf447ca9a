import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Database } from '../../src/store/database.ts';
import { openDatabase } from '../../src/store/open-database.ts';
import { migratedSnapshot } from '../helpers/migrated-snapshot.ts';
import { storePool } from '../helpers/store-pool.ts';

// The embedded test stores of a process are used again (test/helpers/store-pool.ts):
// a store handed to a test must be as fresh as one opened from the run's snapshot.

const opened: Database[] = [];
after(async () => {
  for (const db of opened) await db.close();
});

/** A pool over the run's migrated snapshot, counting the stores it opens. */
function countingPool() {
  let count = 0;
  const pool = storePool(async () => {
    const db = await openDatabase({ databaseUrl: null, dataDir: null, snapshot: migratedSnapshot() });
    opened.push(db);
    count++;
    return db;
  });
  return { pool, opened: () => count };
}

/**
 * A test's use of a store (`use` reads what it needs of it first, then changes it), then the store the pool hands
 * the next test, and how many stores the pool opened for both.
 */
async function usedAgain<T>(use: (db: Database) => Promise<T>): Promise<{ read: T; next: Database; opened: number }> {
  const { pool, opened } = countingPool();
  const first = await pool.take();
  const read = await use(first);
  await first.close();
  return { read, next: await pool.take(), opened: opened() };
}

test('a store closed by its test is the next test store, not a new one', async () => {
  const { next, opened } = await usedAgain(async () => undefined);
  await next.close();
  assert.equal(opened, 1);
});

test('a store used again holds none of the rows its last test wrote, and the rows the migrations wrote', async () => {
  const {
    read: seeded,
    next,
    opened,
  } = await usedAgain(async (db) => {
    const seeded = await db.query('SELECT * FROM api_status');
    await db.query(
      "INSERT INTO accounts (id, email, plan, created_at, updated_at) VALUES (gen_random_uuid(), 'a@example.com', 'pro', now(), now())",
    );
    await db.query('UPDATE api_status SET open = false');
    return seeded;
  });
  assert.deepEqual(await next.query('SELECT count(*)::int AS n FROM accounts'), [{ n: 0 }]);
  assert.deepEqual(await next.query('SELECT * FROM api_status'), seeded);
  assert.equal(opened, 1, 'the same store, emptied');
  await next.close();
});

test('a store used again restarts its sequences', async () => {
  const nextval = "SELECT nextval('monitors_seq_seq')::int AS n";
  const { read: start, next } = await usedAgain(async (db) => {
    const start = await db.query(nextval);
    await db.query(nextval);
    return start;
  });
  assert.deepEqual(await next.query(nextval), start);
  await next.close();
});

test('a store used again has its settings reset', async () => {
  const { read: fresh, next } = await usedAgain(async (db) => {
    const fresh = await db.query('SHOW statement_timeout');
    await db.exec("SET statement_timeout = '1234ms'");
    return fresh;
  });
  assert.deepEqual(await next.query('SHOW statement_timeout'), fresh);
  await next.close();
});

test('a closed test store refuses every call as a closed store does', async () => {
  const { pool } = countingPool();
  const db = await pool.take();
  await db.close();
  await assert.rejects(db.query('SELECT 1'), /the embedded database is closed/);
  await assert.rejects(
    db.transaction(async () => undefined),
    /the embedded database is closed/,
  );
});

test('a store whose schema its test changed is not used again', async () => {
  const { next, opened } = await usedAgain((db) => db.exec('CREATE TABLE left_behind (id int)'));
  assert.equal(opened, 2);
  assert.deepEqual(await next.query("SELECT to_regclass('left_behind')::text AS t"), [{ t: null }]);
  await next.close();
});

test('a store closed with a statement still running is not used again', async () => {
  // Started, not waited for: the test closes its store while the statement runs.
  const { read, next, opened } = await usedAgain(async (db) => ({ running: db.query('SELECT pg_sleep(0.2)').catch((err: Error) => err) }));
  await read.running;
  await next.close();
  assert.equal(opened, 2);
});
