import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Database } from '../../src/store/database.ts';
import { openTestDatabase } from '../helpers/test-database.ts';

// Both stores keep statements prepared. A table may change shape under them
// (another node ran a migration); a statement outside a transaction must then
// simply answer with the new shape.

let db: Database;
before(async () => {
  db = await openTestDatabase();
  await db.exec('CREATE TABLE shapes (id integer PRIMARY KEY, name text NOT NULL)');
  await db.query('INSERT INTO shapes VALUES ($1, $2)', [1, 'one']);
});
after(() => db.close());

test('a statement run many times answers the same as the first time', async () => {
  for (let i = 0; i < 12; i++) assert.deepEqual(await db.query('SELECT * FROM shapes WHERE id = $1', [1]), [{ id: 1, name: 'one' }]);
});

test('after its table changed shape, a statement answers with the new shape', async () => {
  const sql = 'SELECT * FROM shapes WHERE id = $1';
  // Every pooled connection gets it prepared.
  await Promise.all(Array.from({ length: 20 }, () => db.query(sql, [1])));
  await db.exec('ALTER TABLE shapes ADD COLUMN extra integer');
  const rows = await Promise.all(Array.from({ length: 20 }, () => db.query(sql, [1])));
  for (const answer of rows) assert.deepEqual(answer, [{ id: 1, name: 'one', extra: null }]);
});
