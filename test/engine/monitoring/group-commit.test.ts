import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SteppedEngine } from '../../../src/engine/scheduler.ts';
import type { Database, Queryable } from '../../../src/store/database.ts';
import { createAccountWithToken, type TestApp } from '../../helpers/test-app.ts';
import type { FixtureServer } from '../../helpers/fixture-server.ts';
import { useMonitoringWorld } from '../../helpers/monitoring-world.ts';
import { within } from '../../helpers/deadline.ts';
import { insertMonitorRow } from '../../helpers/monitor-rows.ts';
import { serveShop } from '../../helpers/shop-page.ts';
import { startTestEngine } from '../../helpers/test-engine.ts';
import { TITLE } from '../../helpers/watched-page.ts';
import { watchTransactions } from '../../helpers/watched-transactions.ts';

// Finished checks are committed together, one transaction per batch; each
// keeps the guarantees of a commit of its own.

let t: TestApp, site: FixtureServer;
useMonitoringWorld({}, (w) => ({ t, site } = w));

let pageCounter = 0;

/** The store, counting batch commits and failing the change inserts of `failing` monitors. */
function instrumented(db: Database, failing: Set<string>): { db: Database; batches: number[] } {
  const batches: number[] = [];
  const wrap = (tx: Queryable): Queryable => ({
    query: (sql, params) => {
      if (/JOIN check_leases l/.test(sql) && /FOR UPDATE OF l, m, s/.test(sql)) batches.push((params![0] as string[]).length);
      // A real database error inside the transaction, as a broken row of this check would raise.
      if (sql.includes('INSERT INTO changes') && (params![2] as string[]).some((id) => failing.has(id))) return tx.query('SELECT 1 / 0');
      return tx.query(sql, params);
    },
    exec: (sql) => tx.exec(sql),
  });
  return { db: watchTransactions(db, wrap), batches };
}

/**
 * Runs `body` with an engine that commits finished checks in batches of up to
 * ten on the instrumented store (`batches` records each batch's size; the
 * change inserts of monitors added to `failing` fail), and stops the engine after.
 */
async function withBatchingEngine(
  body: (world: { engine: SteppedEngine; batches: number[]; failing: Set<string> }) => Promise<void>,
): Promise<void> {
  const failing = new Set<string>();
  const store = instrumented(t.db, failing);
  const engine = startTestEngine(t, {
    db: store.db,
    concurrency: 10,
    hostConcurrency: 100,
    commitBatch: { maxChecks: 10, maxWaitMs: 1000 },
  });
  try {
    await body({ engine, batches: store.batches, failing });
  } finally {
    await engine.stop();
  }
}

/** `count` shop pages of a new account, each watched by a monitor due now; every other monitor is paused. */
async function duePages(count: number) {
  const { accountId } = await createAccountWithToken(t.app);
  await t.db.query("UPDATE monitors SET status = 'paused'");
  const pages = [];
  for (let i = 0; i < count; i++) {
    const path = `/batch-${process.pid}-${++pageCounter}.html`;
    const setPage = serveShop(site, path);
    const monitorId = await insertMonitorRow(t.db, { accountId, url: `${site.url}${path}`, targets: [TITLE], nextCheckAt: t.clock.now() });
    pages.push({ monitorId, setPage });
  }
  return pages;
}

/** Three watched pages, checked once (baselines seeded), then changed and claimed together. */
async function threeClaimedChecks(engine: SteppedEngine) {
  const pages = await duePages(3);
  const seeded = await engine.runCycle();
  assert.equal(seeded.outcomes.filter((o) => o.outcome === 'recorded').length, 3);
  for (const page of pages) page.setPage({ title: 'Changed' });
  // Due a moment ago, between the monitors' own slots: the clock stands on a
  // whole hour, which is the own slot of one monitor in 3,600 (its offset 0),
  // and an own slot served by a capture less than an interval before waits.
  await t.db.query('UPDATE check_state SET next_check_at = $1 WHERE monitor_id = ANY($2::uuid[])', [
    new Date(t.clock.now().getTime() - 1),
    pages.map((p) => p.monitorId),
  ]);
  const items = await engine.claim();
  assert.deepEqual(items.map((i) => i.monitorId).sort(), pages.map((p) => p.monitorId).sort());
  const byMonitor = (id: string) => items.find((i) => i.monitorId === id)!;
  return { pages, items, byMonitor };
}

const changesOf = async (monitorId: string) =>
  (await t.db.query<{ after_value: string }>('SELECT after_value FROM changes WHERE monitor_id = $1', [monitorId])).map(
    (c) => c.after_value,
  );
const leasesOf = async (monitorId: string) => (await t.db.query('SELECT 1 FROM check_leases WHERE monitor_id = $1', [monitorId])).length;
/** A check of the batch that was recorded: its change and its history row (after the seeding check's). */
async function assertRecordedChange(monitorId: string): Promise<void> {
  assert.deepEqual(await changesOf(monitorId), ['Changed']);
  assert.equal(await runsOf(monitorId), 2);
}
const runsOf = async (monitorId: string) =>
  (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM check_runs WHERE monitor_id = $1', [monitorId]))[0]!.n;

test('a lost lease in a batch does not block the others: its capture is discarded, theirs are recorded in the same commit', async () => {
  await withBatchingEngine(async ({ engine, batches }) => {
    const { pages, items, byMonitor } = await threeClaimedChecks(engine);
    const [lost, ...kept] = pages;
    assert.ok(lost);
    // Presumed dead: another worker took the check over.
    await t.db.query('UPDATE check_leases SET token = gen_random_uuid() WHERE monitor_id = $1', [lost.monitorId]);
    batches.length = 0;
    const outcomes = await Promise.all(items.map((item) => engine.run(item)));
    assert.deepEqual(batches, [3], 'the three checks were committed in one batch');
    assert.deepEqual(outcomes[items.indexOf(byMonitor(lost.monitorId))], { outcome: 'lease_lost' });
    assert.deepEqual(await changesOf(lost.monitorId), []);
    assert.equal(await runsOf(lost.monitorId), 1, 'only the seeding check is in its history');
    assert.equal(await leasesOf(lost.monitorId), 1, "the new holder's lease stays");
    for (const page of kept) {
      assert.equal(outcomes[items.indexOf(byMonitor(page.monitorId))]!.outcome, 'recorded');
      await assertRecordedChange(page.monitorId);
    }
  });
});

test('a monitor changed mid-check is discarded inside a batch; the other checks of the batch are recorded', async () => {
  await withBatchingEngine(async ({ engine, batches }) => {
    const { pages, items, byMonitor } = await threeClaimedChecks(engine);
    const [edited, ...kept] = pages;
    assert.ok(edited);
    await t.db.query('UPDATE monitors SET config_version = config_version + 1 WHERE id = $1', [edited.monitorId]);
    batches.length = 0;
    const outcomes = await Promise.all(items.map((item) => engine.run(item)));
    assert.deepEqual(batches, [3]);
    assert.deepEqual(outcomes[items.indexOf(byMonitor(edited.monitorId))], { outcome: 'monitor_changed' });
    assert.deepEqual(await changesOf(edited.monitorId), []);
    assert.equal(await runsOf(edited.monitorId), 1);
    assert.equal(await leasesOf(edited.monitorId), 0, 'its lease is released');
    for (const page of kept) assert.deepEqual(await changesOf(page.monitorId), ['Changed']);
  });
});

test("a check whose own rows fail is rolled back alone: the batch's other checks are recorded, its lease stays for a retry", async () => {
  await withBatchingEngine(async ({ engine, failing }) => {
    const { pages, items, byMonitor } = await threeClaimedChecks(engine);
    const [broken, ...kept] = pages;
    assert.ok(broken);
    failing.add(broken.monitorId);
    const outcomes = await Promise.allSettled(items.map((item) => engine.run(item)));
    const brokenOutcome = outcomes[items.indexOf(byMonitor(broken.monitorId))]!;
    assert.equal(brokenOutcome.status, 'rejected', 'its failure is reported, after a retry on its own');
    assert.deepEqual(await changesOf(broken.monitorId), []);
    assert.equal(await runsOf(broken.monitorId), 1, 'nothing of the failed check was recorded');
    assert.equal(await leasesOf(broken.monitorId), 1, 'its lease stays, to be taken over');
    for (const page of kept) {
      assert.equal(outcomes[items.indexOf(byMonitor(page.monitorId))]!.status, 'fulfilled');
      await assertRecordedChange(page.monitorId);
    }
  });
});

test('a lone finished check is committed within the batch wait, not held for a full batch', async () => {
  const engine = startTestEngine(t, { concurrency: 10, hostConcurrency: 100, commitBatch: { maxChecks: 100, maxWaitMs: 20 } });
  try {
    const { monitorId } = (await duePages(1))[0]!;
    // No other check will ever join its batch of 100: held for a full batch, the cycle would never end.
    const report = await within('the lone check committed', 30_000, engine.runCycle());
    assert.deepEqual(
      report.outcomes.map((o) => o.outcome),
      ['recorded'],
    );
    assert.equal(await runsOf(monitorId), 1);
  } finally {
    await engine.stop();
  }
});
