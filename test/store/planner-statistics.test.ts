import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Database } from '../../src/store/database.ts';
import { analyzeChangedTables } from '../../src/store/planner-statistics.ts';
import { openTestDatabase, testDatabaseUrl } from '../helpers/test-database.ts';
import { flushActivityStatistics } from '../helpers/activity-statistics.ts';

// PGlite has no autovacuum; the engine runs analyzeChangedTables every minute
// instead, with autovacuum's thresholds (50 rows + 10 % since the last ANALYZE).

const SKIP = testDatabaseUrl ? "PostgreSQL's autovacuum analyses changed tables by itself (and could do so during the test)" : false;

let db: Database;
before(async () => {
  db = await openTestDatabase();
  await db.exec('CREATE TABLE grows (id integer PRIMARY KEY); CREATE TABLE still (id integer PRIMARY KEY)');
});
after(() => db.close());

const statisticsSettled = () => flushActivityStatistics(db);

test('a table changed by more than 50 rows + 10 % since its last ANALYZE is analysed, once', { skip: SKIP }, async () => {
  // A pooled store's earlier user may have left changes not yet counted: counted and analysed first.
  await statisticsSettled();
  await analyzeChangedTables(db);
  await db.query('INSERT INTO grows SELECT g FROM generate_series(1, 500) g');
  await db.query('INSERT INTO still SELECT g FROM generate_series(1, 10) g');
  await statisticsSettled();
  assert.deepEqual(await analyzeChangedTables(db), ['grows']);
  const [stats] = await db.query<{ reltuples: number }>("SELECT reltuples FROM pg_class WHERE relname = 'grows'");
  assert.equal(Number(stats!.reltuples), 500, 'the planner now knows the table holds 500 rows');
  await statisticsSettled();
  assert.deepEqual(await analyzeChangedTables(db), []);
});

test('changes within 10 % of an analysed table wait for more', { skip: SKIP }, async () => {
  await db.query('INSERT INTO grows SELECT g FROM generate_series(501, 540) g');
  await statisticsSettled();
  assert.deepEqual(await analyzeChangedTables(db), []);
  await db.query('INSERT INTO grows SELECT g FROM generate_series(541, 700) g');
  await statisticsSettled();
  assert.deepEqual(await analyzeChangedTables(db), ['grows']);
});

test('every column of the check history is analysed from a sample of at most 3,000 rows', async () => {
  // ANALYZE samples 300 x the largest statistics target of the table's columns;
  // a column added without a target of its own (NULL, the default of 100) would bring back 30,000.
  const columns = await db.query<{ name: string; target: number | null }>(
    `SELECT attname AS name, attstattarget::int AS target FROM pg_attribute
     WHERE attrelid = 'check_runs'::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum`,
  );
  assert.ok(columns.length > 0);
  for (const { name, target } of columns)
    assert.ok(target !== null && target >= 0 && target <= 10, `check_runs.${name} has statistics target ${target}`);
});
