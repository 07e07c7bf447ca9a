import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Database, Queryable } from '../../../src/store/database.ts';
import { createAccountWithToken, type TestApp } from '../../helpers/test-app.ts';
import type { FixtureServer } from '../../helpers/fixture-server.ts';
import { useMonitoringWorld } from '../../helpers/monitoring-world.ts';
import { startTestEngine } from '../../helpers/test-engine.ts';
import { watchTransactions } from '../../helpers/watched-transactions.ts';
import { PRICE, TITLE, watchPage } from '../../helpers/watched-page.ts';

// A batch of checks commits in steady state (baselines seeded, pages unchanged)
// in three statements whatever its size: on the embedded store each statement
// costs CPU that bounds the engine.

let t: TestApp, site: FixtureServer;
useMonitoringWorld({}, (w) => ({ t, site } = w));

/** The store, recording the statements of each transaction. */
function recording(db: Database): { db: Database; transactions: string[][] } {
  const transactions: string[][] = [];
  const watched = watchTransactions(db, (tx): Queryable => {
    const log: string[] = [];
    transactions.push(log);
    return { query: (sql, params) => (log.push(sql.replace(/\s+/g, ' ').trim()), tx.query(sql, params)), exec: (sql) => tx.exec(sql) };
  });
  return { db: watched, transactions };
}

test('an unchanged check commits in three statements: lock leases, monitors and states, read baselines, record and release', async () => {
  const { accountId } = await createAccountWithToken(t.app);
  const store = recording(t.db);
  const engine = startTestEngine(t, { db: store.db });
  try {
    const page = await watchPage(t, site, engine, { accountId, targets: [TITLE] });
    await page.check();
    await page.check();
    store.transactions.length = 0;
    const report = await page.check();
    assert.equal(report.outcomes[0]!.outcome, 'recorded');
    const commit = store.transactions.at(-1)!;
    assert.equal(commit.length, 3, commit.join('\n'));
    assert.match(commit[0]!, /^SELECT .* JOIN check_leases l .* FOR UPDATE OF l, m, s$/);
    assert.match(commit[1]!, /^SELECT \* FROM baselines /);
    assert.match(commit[2]!, /^WITH b AS \(.*DELETE FROM check_leases .*\) UPDATE check_state /);
    const lease = await t.db.query('SELECT 1 FROM check_leases WHERE monitor_id = $1', [page.monitorId]);
    assert.equal(lease.length, 0, 'the lease was released');
  } finally {
    await engine.stop();
  }
});

test('a check whose targets change together inserts all of its changes in one statement', async () => {
  const { accountId } = await createAccountWithToken(t.app);
  const store = recording(t.db);
  const engine = startTestEngine(t, { db: store.db });
  try {
    const page = await watchPage(t, site, engine, { accountId, targets: [TITLE, PRICE] });
    await page.check();
    store.transactions.length = 0;
    await page.check({ title: 'Espresso Trio', price: '€24.00' });
    const inserts = store.transactions.flat().filter((sql) => sql.startsWith('INSERT INTO changes'));
    assert.equal(inserts.length, 1, inserts.join('\n'));
    const changes = await t.db.query<{ target_id: string }>('SELECT target_id FROM changes WHERE monitor_id = $1 ORDER BY target_id', [
      page.monitorId,
    ]);
    assert.deepEqual(
      changes.map((c) => c.target_id),
      ['price', 'title'],
    );
  } finally {
    await engine.stop();
  }
});

test('a monitor deleted while it is being checked: the commit finds no lease and records nothing', async () => {
  const { accountId } = await createAccountWithToken(t.app);
  const engine = startTestEngine(t);
  try {
    const page = await watchPage(t, site, engine, { accountId, targets: [TITLE] });
    const [item] = await engine.claim();
    assert.ok(item);
    assert.equal(item.monitorId, page.monitorId);
    await t.db.query('DELETE FROM monitors WHERE id = $1', [page.monitorId]);
    assert.deepEqual(await engine.run(item), { outcome: 'lease_lost' });
    assert.equal((await t.db.query('SELECT 1 FROM baselines WHERE monitor_id = $1', [page.monitorId])).length, 0);
  } finally {
    await engine.stop();
  }
});
