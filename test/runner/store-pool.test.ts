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

async function rowsOf(db: Database, sql: string): Promise<unknown[]> {
  return db.query(sql);
}

test('a store closed by its test is the next test store, not a new one', async () => {
  const { pool, opened: count } = countingPool();
  await (await pool.take()).close();
  await (await pool.take()).close();
  assert.equal(count(), 1);
});

test('a store used again holds none of the rows its last test wrote, and the rows the migrations wrote', async () => {
  const { pool, opened: count } = countingPool();
  const first = await pool.take();
  const seeded = await rowsOf(first, 'SELECT * FROM api_status');
  await first.query(
    "INSERT INTO accounts (id, email, plan, created_at, updated_at) VALUES (gen_random_uuid(), 'a@example.com', 'pro', now(), now())",
  );
  await first.query('UPDATE api_status SET open = false');
  await first.close();
  const next = await pool.take();
  assert.deepEqual(await rowsOf(next, 'SELECT count(*)::int AS n FROM accounts'), [{ n: 0 }]);
  assert.deepEqual(await rowsOf(next, 'SELECT * FROM api_status'), seeded);
  assert.equal(count(), 1, 'the same store, emptied');
  await next.close();
});

test('a store used again restarts its sequences', async () => {
  const { pool } = countingPool();
  const first = await pool.take();
  const [start] = await rowsOf(first, "SELECT nextval('monitors_seq_seq')::int AS n");
  await first.query("SELECT nextval('monitors_seq_seq')");
  await first.close();
  const next = await pool.take();
  assert.deepEqual(await rowsOf(next, "SELECT nextval('monitors_seq_seq')::int AS n"), [start]);
  await next.close();
});

test('a store used again has its settings reset', async () => {
  const { pool } = countingPool();
  const first = await pool.take();
  const [fresh] = await rowsOf(first, 'SHOW statement_timeout');
  await first.exec("SET statement_timeout = '1234ms'");
  await first.close();
  const next = await pool.take();
  assert.deepEqual(await rowsOf(next, 'SHOW statement_timeout'), [fresh]);
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
  const { pool, opened: count } = countingPool();
  const first = await pool.take();
  await first.exec('CREATE TABLE left_behind (id int)');
  await first.close();
  const next = await pool.take();
  assert.equal(count(), 2);
  assert.deepEqual(await rowsOf(next, "SELECT to_regclass('left_behind')::text AS t"), [{ t: null }]);
  await next.close();
});

test('a store closed with a statement still running is not used again', async () => {
  const { pool, opened: count } = countingPool();
  const first = await pool.take();
  const running = first.query('SELECT pg_sleep(0.2)').catch((err: Error) => err);
  await first.close();
  await running;
  await (await pool.take()).close();
  assert.equal(count(), 2);
});
