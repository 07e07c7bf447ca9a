import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createAccountWithToken, type TestApp } from '../../helpers/test-app.ts';
import type { FixtureServer } from '../../helpers/fixture-server.ts';
import { gatedPages } from '../../helpers/gated-page.ts';
import { useMonitoringWorld } from '../../helpers/monitoring-world.ts';
import { insertMonitorRow } from '../../helpers/monitor-rows.ts';
import { waitUntil } from '../../helpers/pagewatch-process.ts';
import { startTestEngine } from '../../helpers/test-engine.ts';
import { TITLE } from '../../helpers/watched-page.ts';

// Leases follow the work: a check stays with its worker for as long as the
// worker's heartbeat renews its lease, however long the check runs, and
// others take it over only one lease after the last heartbeat.

let t: TestApp, site: FixtureServer;
useMonitoringWorld({}, (w) => ({ t, site } = w));

// Leases run on the test clock; the heartbeat beats in real time, a third of a lease apart, so a short lease is a short wait.
const LEASE_SECONDS = 3;

async function leaseExpiry(monitorId: string): Promise<Date | null> {
  const rows = await t.db.query<{ lease_expires_at: Date }>('SELECT lease_expires_at FROM check_leases WHERE monitor_id = $1', [monitorId]);
  return rows[0]?.lease_expires_at ?? null;
}

test('a check that runs longer than the lease keeps it while its worker beats: nobody else takes it, the page is fetched once', async () => {
  const { accountId } = await createAccountWithToken(t.app);
  const page = gatedPages([site], ['/heartbeat.html']);
  page.close();
  const monitorId = await insertMonitorRow(t.db, {
    accountId,
    url: `${site.url}/heartbeat.html`,
    targets: [TITLE],
    nextCheckAt: t.clock.now(),
  });
  const worker = startTestEngine(t, { leaseSeconds: LEASE_SECONDS });
  worker.start();
  try {
    await waitUntil('the check loading', () => page.waiting === 1);
    // Four leases' worth of time passes while the page loads; the heartbeat keeps the lease ahead of the clock.
    for (let i = 0; i < 4; i++) {
      t.clock.advance(LEASE_SECONDS * 1000);
      await waitUntil('the lease renewed', async () => ((await leaseExpiry(monitorId)) ?? new Date(0)) > t.clock.now());
    }
    const other = startTestEngine(t, { leaseSeconds: LEASE_SECONDS });
    assert.deepEqual(await other.claim(), [], 'a lease its worker renews is not taken over');
    page.open();
    await waitUntil('the check recorded', async () => (await leaseExpiry(monitorId)) === null);
  } finally {
    page.open();
    await worker.stop();
  }
  assert.equal(site.hits.get('/heartbeat.html'), 1);
  const runs = await t.db.query('SELECT 1 FROM check_runs WHERE monitor_id = $1', [monitorId]);
  assert.equal(runs.length, 1);
});
