import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Database } from '../../src/store/database.ts';
import { insertAccount } from '../../src/store/accounts-store.ts';
import { consistencyProblems } from '../../src/store/consistency-check.ts';
import { insertMonitorRow } from '../helpers/monitor-rows.ts';
import { openTestDatabase } from '../helpers/test-database.ts';

// The store's consistency check, which a restore runs on the store it wrote:
// every foreign key holds, and every monitor has the check state its status says.

let db: Database;
before(async () => {
  db = await openTestDatabase();
});
after(() => db.close());

const TITLE = { id: 'title', kind: 'text', selection: { scope: 'page' }, rule: 'changed' } as const;

async function monitor(): Promise<string> {
  const now = new Date();
  const accountId = randomUUID();
  await insertAccount(db, { id: accountId, email: `${accountId}@example.com`, plan: 'pro', created_at: now, updated_at: now });
  return insertMonitorRow(db, { accountId, url: `https://shop.example/${accountId}`, targets: [TITLE], nextCheckAt: now });
}

test('a store written through its own code has no consistency problem', async () => {
  await monitor();
  assert.deepEqual(await consistencyProblems(db), []);
});

test('a row whose foreign key points at nothing is named, with its table and constraint', async () => {
  const id = await monitor();
  // Foreign-key triggers held off, as a damaged or hand-edited store would have it.
  await db.transaction(async (tx) => {
    await tx.query('SET LOCAL session_replication_role = replica');
    await tx.query('DELETE FROM accounts WHERE id = (SELECT account_id FROM monitors WHERE id = $1)', [id]);
  });
  const problems = await consistencyProblems(db);
  assert.ok(
    problems.some((p) => /^monitors: 1 row whose monitors_account_id_fkey points at no row of accounts$/.test(p)),
    problems.join('\n'),
  );
  await db.transaction(async (tx) => {
    await tx.query('SET LOCAL session_replication_role = replica');
    await tx.query('DELETE FROM check_state WHERE monitor_id = $1', [id]);
    await tx.query('DELETE FROM monitors WHERE id = $1', [id]);
  });
  assert.deepEqual(await consistencyProblems(db), []);
});

test('a monitor without check state, or whose check state disagrees with its status, is named', async () => {
  const missing = await monitor();
  const disagreeing = await monitor();
  await db.query('DELETE FROM check_state WHERE monitor_id = $1', [missing]);
  await db.query('UPDATE check_state SET active = false WHERE monitor_id = $1', [disagreeing]);
  assert.deepEqual(await consistencyProblems(db), [
    'monitors: 1 monitor without its check state',
    "monitors: 1 monitor whose check state's active flag disagrees with its status",
  ]);
});
