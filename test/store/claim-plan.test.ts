import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Database, Queryable } from '../../src/store/database.ts';
import { findClaimCandidates, lockClaims } from '../../src/store/check-leases-store.ts';
import { openTestDatabase } from '../helpers/test-database.ts';

// A claim's candidates are always few (its limit, plus queued manual checks
// and expired leases), whatever the planner's statistics say. Every check
// takes and releases a lease, so between vacuums check_leases is pages of dead
// rows, from which the planner expects thousands of expired leases.

const MONITORS = 3000;

let db: Database;
before(async () => {
  db = await openTestDatabase();
});
after(() => db.close());

/** The plan of a claim's candidate query, planned as in a claim's transaction. */
async function claimPlan(at: Date): Promise<string> {
  return db.transaction(async (tx) => {
    await lockClaims(tx);
    const explain: Queryable = { query: (sql, params) => tx.query(`EXPLAIN ${sql}`, params), exec: (sql) => tx.exec(sql) };
    const rows = (await findClaimCandidates(explain, at, ['pro'], 48)) as unknown as { 'QUERY PLAN': string }[];
    return rows.map((row) => row['QUERY PLAN']).join('\n');
  });
}

test('a claim reads its candidates’ monitors by key, not by a scan of every monitor, while dead leases fill check_leases', async () => {
  const at = new Date();
  const accountId = randomUUID();
  await db.query("INSERT INTO accounts (id, email, plan, created_at, updated_at) VALUES ($1, $2, 'pro', now(), now())", [
    accountId,
    `${accountId}@example.test`,
  ]);
  await db.query(
    `INSERT INTO monitors (id, account_id, url, load_mode, status, interval_minutes, targets, email_enabled, webhook_enabled, created_at, updated_at)
     SELECT gen_random_uuid(), $1, 'http://127.0.0.1/' || g, 'html', 'active', 5, '[]'::jsonb, false, false, now(), now()
     FROM generate_series(1, $2::int) g`,
    [accountId, MONITORS],
  );
  await db.query(
    `INSERT INTO check_state (monitor_id, active, next_check_at)
     SELECT id, true, $1::timestamptz + make_interval(secs => row_number() OVER (ORDER BY id)) FROM monitors`,
    [at],
  );
  // Every monitor checked once: its lease taken and released, no vacuum since.
  await db.query(
    `INSERT INTO check_leases (monitor_id, token, host, lease_expires_at, attempt, scheduled, claimed_at)
     SELECT id, gen_random_uuid(), '127.0.0.1', $1::timestamptz, 1, true, $1::timestamptz FROM monitors`,
    [at],
  );
  await db.query('DELETE FROM check_leases');
  await db.exec('ANALYZE monitors; ANALYZE check_state; ANALYZE accounts');

  const plan = await claimPlan(new Date(at.getTime() + 30_000));
  assert.doesNotMatch(plan, /Seq Scan on monitors m\b/, plan);
  assert.match(plan, /Index Scan using monitors_pkey on monitors m\b/, plan);
});
