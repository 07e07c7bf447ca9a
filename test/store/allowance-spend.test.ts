import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { METRICS } from '../../src/domain/usage-metrics.ts';
import { spendAllowance, spendAllowances } from '../../src/store/allowances-store.ts';
import { periodStart } from '../../src/domain/periods.ts';
import type { Database } from '../../src/store/database.ts';
import { insertAccount } from '../../src/store/accounts-store.ts';
import { openTestDatabase } from '../helpers/test-database.ts';

// spendAllowance charges one unit in one statement: never past the limit
// (also under concurrent transactions on PostgreSQL), and nothing at all when
// the allowance is used up or zero. spendAllowances does the same for several
// accounts in one statement.

let db: Database;
before(async () => {
  db = await openTestDatabase();
});
after(async () => {
  await db.close();
});

const AT = new Date('2026-03-14T12:00:00Z');
const METRIC = METRICS.checksHtml;

async function account(): Promise<string> {
  const id = randomUUID();
  await insertAccount(db, { id, email: `${id}@example.com`, plan: 'pro', created_at: AT, updated_at: AT });
  return id;
}

async function counterRows(accountId: string): Promise<number[]> {
  const rows = await db.query<{ used: number }>('SELECT used FROM usage_counters WHERE account_id = $1', [accountId]);
  return rows.map((r) => Number(r.used));
}

test('charges one unit per spend up to the limit, then nothing', async () => {
  const accountId = await account();
  const charged = [];
  for (let i = 0; i < 4; i++) charged.push(await spendAllowance(db, accountId, METRIC, 3, AT));
  const period = periodStart(METRIC, AT);
  assert.deepEqual(charged, [period, period, period, null]);
  assert.deepEqual(await counterRows(accountId), [3]);
});

test('a zero allowance charges nothing and creates no counter', async () => {
  const accountId = await account();
  assert.equal(await spendAllowance(db, accountId, METRIC, 0, AT), null);
  assert.deepEqual(await counterRows(accountId), []);
});

test('concurrent spends in separate transactions never pass the limit', async () => {
  const accountId = await account();
  const results = await Promise.all(Array.from({ length: 12 }, () => db.transaction((tx) => spendAllowance(tx, accountId, METRIC, 5, AT))));
  assert.equal(results.filter((r) => r !== null).length, 5);
  assert.deepEqual(await counterRows(accountId), [5]);
});

test('spends of several accounts are charged together, each wholly when it fits', async () => {
  const [first, second] = [await account(), await account()];
  const spent = await spendAllowances(
    db,
    [
      { accountId: first, metric: METRIC, limit: 10, amount: 4 },
      { accountId: second, metric: METRIC, limit: 10, amount: 2 },
    ],
    AT,
  );
  const period = periodStart(METRIC, AT);
  assert.deepEqual(spent.get(`${first}:${METRIC.name}`), { period, granted: 4 });
  assert.deepEqual(spent.get(`${second}:${METRIC.name}`), { period, granted: 2 });
  assert.deepEqual(await counterRows(first), [4]);
  assert.deepEqual(await counterRows(second), [2]);
});

test('a spend that does not fit wholly gets what is left of the limit, and no more', async () => {
  const accountId = await account();
  await spendAllowances(db, [{ accountId, metric: METRIC, limit: 5, amount: 3 }], AT);
  const spent = await spendAllowances(db, [{ accountId, metric: METRIC, limit: 5, amount: 4 }], AT);
  assert.equal(spent.get(`${accountId}:${METRIC.name}`)?.granted, 2);
  assert.deepEqual(await counterRows(accountId), [5]);
  const after = await spendAllowances(db, [{ accountId, metric: METRIC, limit: 5, amount: 1 }], AT);
  assert.equal(after.get(`${accountId}:${METRIC.name}`)?.granted, 0);
});

test('a zero allowance grants nothing to a group spend and creates no counter', async () => {
  const accountId = await account();
  const spent = await spendAllowances(db, [{ accountId, metric: METRIC, limit: 0, amount: 3 }], AT);
  assert.equal(spent.get(`${accountId}:${METRIC.name}`)?.granted, 0);
  assert.deepEqual(await counterRows(accountId), []);
});

test('concurrent group spends of two accounts in separate transactions never pass either limit', async () => {
  const [first, second] = [await account(), await account()];
  const spend = (order: string[]) =>
    db.transaction((tx) =>
      spendAllowances(
        tx,
        order.map((accountId) => ({ accountId, metric: METRIC, limit: 7, amount: 2 })),
        AT,
      ),
    );
  const results = await Promise.all(Array.from({ length: 10 }, (_, i) => spend(i % 2 ? [first, second] : [second, first])));
  for (const accountId of [first, second]) {
    const granted = results.reduce((sum, r) => sum + r.get(`${accountId}:${METRIC.name}`)!.granted, 0);
    assert.equal(granted, 7);
    assert.deepEqual(await counterRows(accountId), [7]);
  }
});
