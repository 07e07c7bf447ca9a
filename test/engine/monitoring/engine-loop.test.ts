import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createAccountWithToken, type TestApp } from '../../helpers/test-app.ts';
import type { FixtureServer } from '../../helpers/fixture-server.ts';
import { useMonitoringWorld } from '../../helpers/monitoring-world.ts';
import { insertMonitorRow } from '../../helpers/monitor-rows.ts';
import { advanceToDue, startTestEngine } from '../../helpers/test-engine.ts';
import { TITLE } from '../../helpers/watched-page.ts';
import { gatedPages } from '../../helpers/gated-page.ts';
import { createEngine } from '../../../src/engine/scheduler.ts';

let t: TestApp, site: FixtureServer;
useMonitoringWorld({}, (w) => ({ t, site } = w));

async function waitFor(predicate: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

test('the loop checks due monitors on its own, and once stopped it checks nothing more and stays still', async () => {
  const { accountId } = await createAccountWithToken(t.app);
  const id = await insertMonitorRow(t.db, {
    accountId,
    url: `${site.url}/shop/espresso.html`,
    targets: [TITLE],
    nextCheckAt: t.clock.now(),
  });
  const engine = startTestEngine(t, { tickSeconds: 1 });
  engine.start();

  assert.equal(engine.running, true);
  await waitFor(
    async () => (await t.db.query('SELECT 1 FROM check_state WHERE monitor_id = $1 AND last_checked_at IS NOT NULL', [id])).length > 0,
  );
  await engine.stop();
  assert.equal(engine.running, false);

  await advanceToDue(t, id);
  await new Promise((resolve) => setTimeout(resolve, 1500));
  // A loop left running would have checked the monitor again by now (its tick is one second).
  assert.equal(site.hits.get('/shop/espresso.html'), 1, 'a stopped loop claims nothing');
});

/** Sixteen monitors of the fixture site, all due, checked by a loop whose cycle is an hour. */
async function allCheckedByRefills(options: { concurrency: number; hostConcurrency?: number }): Promise<void> {
  const { accountId } = await createAccountWithToken(t.app);
  const ids: string[] = [];
  for (let i = 0; i < 16; i++) {
    ids.push(
      await insertMonitorRow(t.db, {
        accountId,
        url: `${site.url}/shop/espresso.html?loop=${i}`,
        targets: [TITLE],
        nextCheckAt: t.clock.now(),
      }),
    );
  }
  // A one-hour cycle: only slot refills can get through sixteen checks with so few slots.
  const engine = startTestEngine(t, { tickSeconds: 3600, ...options });
  engine.start();
  try {
    await waitFor(async () => {
      const rows = await t.db.query('SELECT 1 FROM check_state WHERE monitor_id = ANY($1::uuid[]) AND last_checked_at IS NOT NULL', [ids]);
      return rows.length === ids.length;
    }, 30_000);
  } finally {
    await engine.stop();
  }
}

test('a saturated loop claims again as soon as slots free, without waiting for the next cycle', async () => {
  await allCheckedByRefills({ concurrency: 2 });
});

test('a loop held back by the per-host limit claims again as soon as a check of that host ends', async () => {
  await allCheckedByRefills({ concurrency: 4, hostConcurrency: 1 });
});

/** Monitors of these paths, due now, and the only ones active. */
async function dueMonitors(accountId: string, paths: string[]): Promise<string[]> {
  await t.db.query("UPDATE monitors SET status = 'paused'");
  const ids: string[] = [];
  for (const path of paths)
    ids.push(await insertMonitorRow(t.db, { accountId, url: `${site.url}${path}`, targets: [TITLE], nextCheckAt: t.clock.now() }));
  return ids;
}

test('the loop claims ahead of its slots, loads no more than its concurrency at once, and a stop hands the claimed checks back unchecked', async () => {
  const paths = ['/ahead/1.html', '/ahead/2.html', '/ahead/3.html', '/ahead/4.html'];
  const gate = gatedPages([site], paths);
  gate.close();
  const { accountId } = await createAccountWithToken(t.app);
  const ids = await dueMonitors(accountId, paths);
  const engine = startTestEngine(t, { tickSeconds: 3600, concurrency: 1, hostConcurrency: 4 });
  const leases = async () =>
    (await t.db.query('SELECT 1 FROM check_leases WHERE monitor_id = ANY($1::uuid[]) AND lease_expires_at > $2', [ids, t.clock.now()]))
      .length;
  engine.start();
  try {
    await waitFor(async () => gate.waiting === 1 && (await leases()) === 2);
    // A bounded wait to show that something does not happen: no second load starts.
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(gate.waiting, 1, 'one slot, one load at a time');
  } finally {
    await engine.stop();
    gate.open();
  }
  assert.equal(await leases(), 0, 'both claimed checks were handed back');
  const usage = await t.db.query<{ used: number }>("SELECT used FROM usage_counters WHERE account_id = $1 AND metric = 'checks_html'", [
    accountId,
  ]);
  assert.deepEqual(
    usage.map((r) => Number(r.used)),
    [0],
    'their allowance came back',
  );
  const checked = await t.db.query('SELECT 1 FROM check_state WHERE monitor_id = ANY($1::uuid[]) AND last_checked_at IS NOT NULL', [ids]);
  assert.equal(checked.length, 0);
});

test('a check frees its slot once handed to the group commit: the next check loads while the batch still waits', async () => {
  const paths = ['/slot/1.html', '/slot/2.html'];
  for (const path of paths) site.route(path, (_req, res) => void res.end('<html><body><h1 id="title">Slot</h1></body></html>'));
  const { accountId } = await createAccountWithToken(t.app);
  const ids = await dueMonitors(accountId, paths);
  const engine = startTestEngine(t, { tickSeconds: 3600, concurrency: 1, commitBatch: { maxChecks: 100, maxWaitMs: 3000 } });
  engine.start();
  try {
    await waitFor(() => paths.every((path) => site.hits.get(path) === 1));
    const recorded = await t.db.query('SELECT 1 FROM check_state WHERE monitor_id = ANY($1::uuid[]) AND last_checked_at IS NOT NULL', [
      ids,
    ]);
    assert.equal(recorded.length, 0, 'the first check is still waiting for its batch');
  } finally {
    await engine.stop();
  }
});

test('a loop that fell far behind moves every overdue monitor to its next slot at once, then checks what is due, without a cycle per page', async () => {
  site.route('/behind/due.html', (_req, res) => void res.end('<html><body><h1 id="title">Due</h1></body></html>'));
  const { accountId } = await createAccountWithToken(t.app);
  const [due] = await dueMonitors(accountId, ['/behind/due.html']);
  const now = t.clock.now();
  const overdue: string[] = [];
  // More than a claim's page of candidates (20 at concurrency 1), all checked before and three cycles late.
  for (let i = 0; i < 60; i++) {
    overdue.push(
      await insertMonitorRow(t.db, {
        accountId,
        url: `${site.url}/behind/late-${i}.html`,
        targets: [TITLE],
        nextCheckAt: new Date(now.getTime() - 3 * 3600_000),
      }),
    );
  }
  await t.db.query('UPDATE check_state SET last_checked_at = $2 WHERE monitor_id = ANY($1::uuid[])', [
    overdue,
    new Date(now.getTime() - 4 * 3600_000),
  ]);
  // A one-hour cycle: only claiming again at once gets through the pages of overdue monitors to the due one.
  const engine = startTestEngine(t, { tickSeconds: 3600, concurrency: 1 });
  engine.start();
  try {
    await waitFor(
      async () => (await t.db.query('SELECT 1 FROM check_state WHERE monitor_id = $1 AND last_checked_at IS NOT NULL', [due])).length > 0,
    );
  } finally {
    await engine.stop();
  }
  const moved = await t.db.query('SELECT 1 FROM check_state WHERE monitor_id = ANY($1::uuid[]) AND next_check_at > $2', [overdue, now]);
  assert.equal(moved.length, overdue.length, 'every overdue monitor moved to its next slot');
  const late = [...site.hits.keys()].filter((path) => path.startsWith('/behind/late-'));
  assert.deepEqual(late, [], 'overdue monitors are not checked');
});

test('the engine a service runs is started and stopped, never stepped: its test hooks are not there', async () => {
  const engine = createEngine({
    db: t.db,
    clock: t.clock,
    loaders: t.loaders,
    plans: t.config.plans,
    tickSeconds: 3600,
    concurrency: 1,
    logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
  });
  assert.deepEqual(Object.keys(engine).sort(), ['running', 'start', 'stop']);
  assert.equal(engine.running, false);
  await engine.stop();
});
