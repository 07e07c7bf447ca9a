import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Database } from '../../src/store/database.ts';
import { insertAccount } from '../../src/store/accounts-store.ts';
import { writeBaselines } from '../../src/store/baselines-store.ts';
import { findMonitor, findMonitorsWithBaselines, type MonitorKey } from '../../src/store/monitors-store.ts';
import { insertMonitorRow } from '../helpers/monitor-rows.ts';
import { openTestDatabase } from '../helpers/test-database.ts';
import { TITLE } from '../helpers/watched-page.ts';

// The grouped monitor read of GET /monitors/{id}: many monitors, with their
// baselines, in one statement.

let db: Database;
let accountId: string;
let otherAccountId: string;
const ids: string[] = [];
const at = new Date('2026-11-20T10:00:00.123Z');

before(async () => {
  // The plan test below counts this store's plans of the grouped read from its first run.
  db = await openTestDatabase({ pooled: false });
  [accountId, otherAccountId] = [randomUUID(), randomUUID()];
  for (const id of [accountId, otherAccountId]) {
    await insertAccount(db, { id, email: `${id}@example.com`, plan: 'pro', created_at: at, updated_at: at });
  }
  for (let i = 0; i < 3; i++) {
    ids.push(await insertMonitorRow(db, { accountId, url: `https://shop.example/${i}.html`, targets: [TITLE], nextCheckAt: at }));
  }
  // One monitor checked and failing, with issues and a baseline: every kind of column is set.
  await db.query(
    `UPDATE check_state SET last_checked_at = $2, last_change_at = $2, failing_since = $2,
       last_issues = '[{"code":"fetch_failed","message":"timed out"}]' WHERE monitor_id = $1`,
    [ids[1], new Date('2026-11-21T08:30:00.456Z')],
  );
  await db.query(`UPDATE monitors SET name = 'Espresso', labels = '["coffee"]' WHERE id = $1`, [ids[1]]);
  await writeBaselines(db, [
    {
      monitor_id: ids[1]!,
      target_id: TITLE.id,
      fingerprint: 'f1',
      value: 'Espresso Duo',
      display: 'Espresso Duo',
      text_hash: null,
      seen_links: [],
      updated_at: new Date('2026-11-21T08:30:00.789Z'),
      pending_value: null,
      pending_since: null,
    },
  ]);
});
after(() => db.close());

const keysOf = (...monitorIds: string[]): MonitorKey[] => monitorIds.map((id) => ({ accountId, id }));

test('a grouped read answers each monitor exactly as the row read does, with its baselines', async () => {
  const found = await findMonitorsWithBaselines(db, keysOf(...ids));
  for (const [i, id] of ids.entries()) assert.deepEqual(found[i]!.monitor, await findMonitor(db, accountId, id));
  assert.deepEqual(found[0]!.baselines, []);
  assert.deepEqual(found[1]!.baselines, [
    {
      target_id: TITLE.id,
      fingerprint: 'f1',
      value: 'Espresso Duo',
      display: 'Espresso Duo',
      updated_at: new Date('2026-11-21T08:30:00.789Z'),
    },
  ]);
});

test("a grouped read answers in the keys' order, null for a monitor that is not there or not the account's", async () => {
  const keys = [...keysOf(ids[2]!, randomUUID(), ids[0]!), { accountId: otherAccountId, id: ids[1]! }];
  const found = await findMonitorsWithBaselines(db, keys);
  assert.equal(found.length, 4);
  assert.equal(found[0]!.monitor.id, ids[2]);
  assert.equal(found[1], null);
  assert.equal(found[2]!.monitor.id, ids[0]);
  assert.equal(found[3], null, "another account's monitor");
});

test('a key asked twice in one group is answered twice', async () => {
  const found = await findMonitorsWithBaselines(db, keysOf(ids[0]!, ids[0]!));
  assert.deepEqual(
    found.map((f) => f?.monitor.id),
    [ids[0], ids[0]],
  );
});

test('the grouped read keeps one plan for groups of every size instead of being planned again for each', async () => {
  for (let n = 1; n <= 12; n++) await findMonitorsWithBaselines(db, keysOf(...ids.slice(0, 1 + (n % 3))));
  const [plans] = await db.query<{ generic: number; custom: number }>(
    `SELECT generic_plans::int AS generic, custom_plans::int AS custom FROM pg_prepared_statements
     WHERE statement LIKE '%json_to_recordset%' AND statement NOT LIKE '%pg_prepared_statements%'`,
  );
  // PostgreSQL tries custom plans for a statement's first five runs, then keeps the generic one if it costs no more.
  assert.ok(plans!.custom <= 5 && plans!.generic >= 7, `custom ${plans!.custom}, generic ${plans!.generic} plans`);
});
