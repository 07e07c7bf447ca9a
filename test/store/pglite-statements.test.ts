import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { PGlite } from '@electric-sql/pglite';
import { preparedStatements, type PreparedStatements } from '../../src/store/pglite-statements.ts';
import { isPreparable } from '../../src/store/preparable.ts';

// The embedded store keeps its statements prepared; what a caller sees must be
// exactly what PGlite's own query() gives.

let db: PGlite;
let statements: PreparedStatements;
const preparedNames = async () =>
  (await db.query<{ name: string }>('SELECT name FROM pg_prepared_statements ORDER BY name')).rows.map((r) => r.name);

before(async () => {
  db = new PGlite();
  await db.waitReady;
  await db.exec('CREATE TABLE items (id integer PRIMARY KEY, name text NOT NULL, tags text[], doc jsonb)');
  statements = preparedStatements(db, 3);
});
after(() => db.close());

test('a prepared statement returns the rows and types query() returns, every time it runs', async () => {
  const sql = 'INSERT INTO items VALUES ($1, $2, $3, $4) RETURNING *';
  for (const id of [1, 2]) {
    const params = [id, `item ${id}`, ['a', 'b'], { n: id }];
    const prepared = await statements.query(sql, params, false);
    const direct = (await db.query('SELECT * FROM items WHERE id = $1', [id])).rows;
    assert.deepEqual(prepared, direct);
    assert.deepEqual(prepared, [{ id, name: `item ${id}`, tags: ['a', 'b'], doc: { n: id } }]);
  }
});

test('null and undefined parameters both bind as NULL', async () => {
  const rows = await statements.query('SELECT $1::text IS NULL AS a, $2::int IS NULL AS b', [null, undefined], false);
  assert.deepEqual(rows, [{ a: true, b: true }]);
});

test('only statements that plan are kept prepared', () => {
  assert.equal(isPreparable('  select 1'), true);
  assert.equal(isPreparable('WITH x AS (SELECT 1) SELECT * FROM x'), true);
  assert.equal(isPreparable('VACUUM (ANALYZE) items'), false);
  assert.equal(isPreparable('SET LOCAL synchronous_commit = off'), false);
});

test('beyond the limit the least recently used statement is closed on the server', async () => {
  for (const n of [1, 2, 3, 1, 4]) await statements.query(`SELECT ${n} AS n WHERE $1::int > 0`, [1], false);
  const names = await preparedNames();
  assert.equal(names.length, 3);
  // 1 was used again before 4 arrived, so 2 went.
  assert.deepEqual(await statements.query('SELECT 1 AS n WHERE $1::int > 0', [1], false), [{ n: 1 }]);
  assert.deepEqual(await preparedNames(), names);
});

test('an error keeps its SQLSTATE and constraint, and the statement stays usable', async () => {
  const sql = 'INSERT INTO items (id, name) VALUES ($1, $2)';
  await assert.rejects(statements.query(sql, [1, 'again'], false), (err: Error & { code?: string; constraint?: string }) => {
    assert.equal(err.code, '23505');
    assert.equal(err.constraint, 'items_pkey');
    return true;
  });
  await statements.query(sql, [9, 'nine'], false);
  assert.equal((await db.query('SELECT name FROM items WHERE id = 9')).rows.length, 1);
});

test('a syntax error is reported and nothing is kept prepared for it', async () => {
  const before = await preparedNames();
  await assert.rejects(statements.query('SELECT FROM WHERE $1', [1], false), (err: Error & { code?: string }) => err.code === '42601');
  assert.deepEqual(await preparedNames(), before);
});

test('outside a transaction, a statement whose table changed shape is prepared afresh and answers', async () => {
  const sql = 'SELECT * FROM items WHERE id = $1';
  await statements.query(sql, [1], false);
  await db.exec('ALTER TABLE items ADD COLUMN extra integer');
  const [row] = (await statements.query(sql, [1], false)) as { extra: number | null }[];
  assert.equal(row!.extra, null);
});

test('inside a transaction, a statement whose table changed shape fails that transaction once', async () => {
  const sql = 'SELECT * FROM items WHERE id = $1';
  await statements.query(sql, [1], false);
  await db.exec('ALTER TABLE items ADD COLUMN more integer');
  await assert.rejects(
    db.transaction(() => statements.query(sql, [1], true)),
    (err: Error & { code?: string }) => err.code === '0A000',
  );
  const [row] = (await db.transaction(() => statements.query(sql, [1], true))) as { more: number | null }[];
  assert.equal(row!.more, null);
});

test('inside a transaction statements see its uncommitted rows and roll back with it', async () => {
  await db
    .transaction(async () => {
      await statements.query('INSERT INTO items (id, name) VALUES ($1, $2)', [50, 'fifty'], true);
      assert.equal((await statements.query('SELECT name FROM items WHERE id = $1', [50], true)).length, 1);
      throw new Error('roll back');
    })
    .catch(() => undefined);
  assert.deepEqual(await statements.query('SELECT name FROM items WHERE id = $1', [50], false), []);
});
