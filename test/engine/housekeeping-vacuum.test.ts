import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cleanupExpired } from '../../src/engine/housekeeping.ts';
import { HOT_TABLES } from '../../src/store/vacuum.ts';
import { createAccountWithToken, startTestApp } from '../helpers/test-app.ts';
import { insertMonitorRow } from '../helpers/monitor-rows.ts';
import { TITLE } from '../helpers/watched-page.ts';
import { startTestEngine } from '../helpers/test-engine.ts';
import { testDatabaseUrl } from '../helpers/test-database.ts';
import { flushActivityStatistics } from '../helpers/activity-statistics.ts';

// PGlite has no autovacuum: the hourly cleanup vacuums the tables written on
// every check and request, so rewriting rows does not grow the store without
// bound, and the engine analyses tables that changed much in between.
// (PostgreSQL's own autovacuum does both there.)

const SKIP = testDatabaseUrl ? 'PostgreSQL vacuums itself (autovacuum); housekeeping vacuums the embedded store only' : false;

test('with the cleanup between rounds of check-like updates, the check state table stops growing', { skip: SKIP }, async () => {
  const t = await startTestApp();
  try {
    const { accountId } = await createAccountWithToken(t.app);
    for (let i = 0; i < 200; i++)
      await insertMonitorRow(t.db, { accountId, url: `https://shop.example/v${i}`, targets: [TITLE], nextCheckAt: t.clock.now() });
    const size = async () => (await t.db.query<{ s: number }>("SELECT pg_relation_size('check_state')::int AS s"))[0]!.s;
    const round = async (n: number) => {
      for (let i = 0; i < 5; i++)
        await t.db.query("UPDATE check_state SET last_issues = $1::jsonb, next_check_at = next_check_at + interval '1 minute'", [
          JSON.stringify([{ code: `r${n}-${i}` }]),
        ]);
      return cleanupExpired(t.db, t.config.plans, t.clock.now());
    };
    const report = await round(0);
    assert.deepEqual(Object.keys(report.vacuumMs ?? {}), [...HOT_TABLES], 'every hot table is vacuumed, one at a time');
    await round(1);
    const settled = await size();
    for (let n = 2; n < 12; n++) await round(n);
    assert.ok(
      (await size()) <= settled * 1.25,
      `check_state grew from ${settled} to ${await size()} bytes although its rows were vacuumed`,
    );
  } finally {
    await t.close();
  }
});

test('without vacuum the same updates keep growing the table (what the cleanup prevents)', { skip: SKIP }, async () => {
  const t = await startTestApp();
  try {
    const { accountId } = await createAccountWithToken(t.app);
    for (let i = 0; i < 200; i++)
      await insertMonitorRow(t.db, { accountId, url: `https://shop.example/w${i}`, targets: [TITLE], nextCheckAt: t.clock.now() });
    const size = async () => (await t.db.query<{ s: number }>("SELECT pg_relation_size('check_state')::int AS s"))[0]!.s;
    for (let i = 0; i < 10; i++)
      await t.db.query("UPDATE check_state SET last_issues = $1::jsonb, next_check_at = next_check_at + interval '1 minute'", [
        JSON.stringify([{ code: `a${i}` }]),
      ]);
    const early = await size();
    for (let i = 0; i < 50; i++)
      await t.db.query("UPDATE check_state SET last_issues = $1::jsonb, next_check_at = next_check_at + interval '1 minute'", [
        JSON.stringify([{ code: `b${i}` }]),
      ]);
    assert.ok((await size()) > early * 2, 'the table grows with every round of updates');
  } finally {
    await t.close();
  }
});

test('the engine keeps the planner statistics of a table that grew between vacuums up to date', { skip: SKIP }, async () => {
  const t = await startTestApp();
  const engine = startTestEngine(t);
  try {
    const { accountId } = await createAccountWithToken(t.app);
    await t.db.query("UPDATE monitors SET status = 'paused'");
    // The first cycle also runs the hourly cleanup (its VACUUM analyses every hot table); the growth comes after it.
    await engine.runCycle();
    for (let i = 0; i < 150; i++)
      await insertMonitorRow(t.db, {
        accountId,
        url: `https://shop.example/g${i}`,
        targets: [TITLE],
        nextCheckAt: new Date(t.clock.now().getTime() + 3_600_000),
      });
    await flushActivityStatistics(t.db);
    t.clock.set(new Date(t.clock.now().getTime() + 61_000));
    await engine.runCycle();
    const [stats] = await t.db.query<{ reltuples: number }>("SELECT reltuples FROM pg_class WHERE relname = 'check_state'");
    assert.ok(Number(stats!.reltuples) >= 150, `the planner believes check_state holds ${stats!.reltuples} rows`);
  } finally {
    await engine.stop();
    await t.close();
  }
});

test(
  "between the hourly cleanups, a hot table written more than the slice's rows since its last vacuum is vacuumed by the minute's housekeeping",
  { skip: SKIP },
  async () => {
    const t = await startTestApp();
    const engine = startTestEngine(t, { vacuumSliceRows: 300 });
    try {
      const { accountId } = await createAccountWithToken(t.app);
      for (let i = 0; i < 100; i++)
        await insertMonitorRow(t.db, { accountId, url: `https://shop.example/s${i}`, targets: [TITLE], nextCheckAt: t.clock.now() });
      await t.db.query("UPDATE monitors SET status = 'paused'");
      // The first cycle runs the hourly cleanup, which vacuums every hot table.
      await engine.runCycle();
      const vacuums = async () =>
        Object.fromEntries(
          (
            await t.db.query<{ name: string; n: number }>(
              "SELECT relname AS name, vacuum_count::int AS n FROM pg_stat_user_tables WHERE relname IN ('check_state', 'check_runs')",
            )
          ).map((r) => [r.name, r.n]),
        );
      const before = await vacuums();
      for (let i = 0; i < 4; i++) await t.db.query("UPDATE check_state SET next_check_at = next_check_at + interval '1 minute'");
      await flushActivityStatistics(t.db);
      t.clock.set(new Date(t.clock.now().getTime() + 61_000));
      await engine.runCycle();
      const after = await vacuums();
      assert.equal(after.check_state, before.check_state! + 1, 'check_state (400 dead row versions) was vacuumed');
      assert.equal(after.check_runs, before.check_runs, 'check_runs (nothing written) was not');
    } finally {
      await engine.stop();
      await t.close();
    }
  },
);
