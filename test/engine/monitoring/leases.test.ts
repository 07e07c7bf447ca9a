import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import type { SteppedEngine } from '../../../src/engine/scheduler.ts';
import { createSteppedEngine } from '../../../src/engine/scheduler.ts';
import { openPostgresDatabase } from '../../../src/store/postgres-database.ts';
import { bearer, createAccountWithToken, type TestApp } from '../../helpers/test-app.ts';
import type { FixtureServer } from '../../helpers/fixture-server.ts';
import { useMonitoringWorld } from '../../helpers/monitoring-world.ts';
import { insertMonitorRow } from '../../helpers/monitor-rows.ts';
import { shopHtml, INITIAL_SHOP } from '../../helpers/shop-page.ts';
import { testDatabaseUrl } from '../../helpers/test-database.ts';
import { startTestEngine } from '../../helpers/test-engine.ts';
import { watchPage } from '../../helpers/watched-page.ts';

let t: TestApp, site: FixtureServer;
useMonitoringWorld({}, (w) => ({ t, site } = w));

const LEASE_SECONDS = 300;

test('a worker that dies mid-check: after its lease expires the check is done again and recorded once', async () => {
  const { accountId, token } = await createAccountWithToken(t.app);
  const dying = startTestEngine(t, { leaseSeconds: LEASE_SECONDS });
  const survivor = startTestEngine(t, { leaseSeconds: LEASE_SECONDS });
  const page = await watchPage(t, site, survivor, { accountId });
  await page.check();
  page.setPage({ title: 'Changed' });
  t.clock.set(await nextDue(page.monitorId));

  const [claimed] = await dying.claim();
  assert.ok(claimed);
  assert.equal(claimed.monitorId, page.monitorId);
  assert.deepEqual((await survivor.runCycle()).claimed, [], 'a live lease is not taken');
  t.clock.advance(LEASE_SECONDS * 1000);
  const report = await survivor.runCycle();
  assert.deepEqual(
    report.claimed.map((item) => [item.monitorId, item.attempt]),
    [[page.monitorId, 2]],
  );
  assert.equal(report.outcomes[0]!.outcome, 'recorded');

  // The presumed-dead worker comes back and finishes: its results are discarded.
  assert.deepEqual(await dying.run(claimed), { outcome: 'lease_lost' });
  const changes = await t.db.query<{ after_value: string }>('SELECT after_value FROM changes WHERE monitor_id = $1', [page.monitorId]);
  assert.deepEqual(
    changes.map((c) => c.after_value),
    ['Changed'],
  );
  const usage = await t.app.inject({ method: 'GET', url: '/api/v1/usage', headers: bearer(token) });
  assert.equal(usage.json().data.checks.html.used, 2, 'the take-over used the reservation of the dead worker');
  await dying.stop();
  await survivor.stop();
});

async function nextDue(monitorId: string): Promise<Date> {
  const [row] = await t.db.query<{ next_check_at: Date }>('SELECT next_check_at FROM check_state WHERE monitor_id = $1', [monitorId]);
  assert.ok(row);
  return row.next_check_at;
}

test(
  'two worker loops on one PostgreSQL never check the same monitor at once',
  { skip: testDatabaseUrl ? false : 'needs PostgreSQL (TEST_DATABASE_URL): PGlite is single-process' },
  async () => {
    const { accountId } = await createAccountWithToken(t.app);
    await t.db.query("UPDATE monitors SET status = 'paused'");
    const inFlight = new Map<string, number>();
    const hits = new Map<string, number>();
    let overlap = 0;
    const monitorIds: string[] = [];
    for (let i = 0; i < 12; i++) {
      const path = `/concurrent-${i}.html`;
      site.route(path, async (_req, res) => {
        inFlight.set(path, (inFlight.get(path) ?? 0) + 1);
        hits.set(path, (hits.get(path) ?? 0) + 1);
        if (inFlight.get(path)! > 1) overlap++;
        await new Promise((resolve) => setTimeout(resolve, 50));
        inFlight.set(path, inFlight.get(path)! - 1);
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end(shopHtml(INITIAL_SHOP));
      });
      monitorIds.push(
        await insertMonitorRow(t.db, {
          accountId,
          url: `${site.url}${path}`,
          targets: [{ id: 'title', kind: 'text', selection: { scope: 'selector', selector: '#title' } }],
          nextCheckAt: t.clock.now(),
        }),
      );
    }
    // A second process's view of the same database: its own connection pool on the same schema.
    const { schema } = (await t.db.query<{ schema: string }>('SELECT current_schema() AS schema'))[0]!;
    const otherDb = await openPostgresDatabase({ connectionString: testDatabaseUrl!, schema });
    const options = {
      clock: t.clock,
      loaders: t.loaders,
      plans: t.config.plans,
      tickSeconds: 60,
      logger: pino({ level: 'silent' }),
      concurrency: 3,
      hostConcurrency: 100,
    };
    const first: SteppedEngine = createSteppedEngine({ ...options, db: t.db });
    const second: SteppedEngine = createSteppedEngine({ ...options, db: otherDb });
    try {
      const claimed: string[] = [];
      for (let round = 0; round < 4; round++) {
        const reports = await Promise.all([first.runCycle(), second.runCycle(), first.runCycle(), second.runCycle()]);
        claimed.push(...reports.flatMap((r) => r.claimed.map((item) => item.monitorId)));
      }
      assert.equal(overlap, 0, 'no page was loaded by two workers at once');
      assert.deepEqual([...claimed].sort(), [...monitorIds].sort(), 'every monitor was checked exactly once');
      assert.deepEqual([...hits.values()], Array(12).fill(1));
    } finally {
      await first.stop();
      await second.stop();
      await otherDb.close();
    }
  },
);
