import { test } from 'node:test';
import assert from 'node:assert/strict';
import { idDueJustBefore } from '../helpers/due-slot.ts';
import type { FixtureServer } from '../helpers/fixture-server.ts';
import { gatedPages } from '../helpers/gated-page.ts';
import { insertMonitorRow } from '../helpers/monitor-rows.ts';
import {
  baseEnv,
  createAccountVia,
  waitUntil,
  writePlansFile,
  type PagewatchProcess,
  type ProcessGroup,
} from '../helpers/pagewatch-process.ts';
import type { SharedSchema } from '../helpers/shared-schema.ts';
import { SHARED_WORLD_SKIP as SKIP, useSharedWorld } from '../helpers/shared-world.ts';
import { TITLE } from '../helpers/watched-page.ts';

// kill -9 of a worker in the middle of its checks: the other workers take the
// checks over once the dead worker's leases run out (PAGEWATCH_LEASE_SECONDS),
// each real change is recorded once, and no receipt is left running.

const MONITORS = 6;
const LEASE_SECONDS = 6;

let shared: SharedSchema, sites: FixtureServer[], group: ProcessGroup;
useSharedWorld({ sites: 3 }, (w) => ({ shared, sites, group } = w));

test(
  'a worker killed mid-check: its checks are done by the others after the lease runs out, one change each, no receipt left running',
  { skip: SKIP },
  async () => {
    const env = baseEnv({
      DATABASE_URL: shared.url,
      PAGEWATCH_TICK_SECONDS: '1',
      PAGEWATCH_WORKER_CONCURRENCY: '8',
      PAGEWATCH_LEASE_SECONDS: String(LEASE_SECONDS),
      // Manual checks may run right after the previous capture.
      PAGEWATCH_PLANS_FILE: writePlansFile({ pro: { min_interval_minutes: { html: 0 } } }),
    });
    const [api, doomed] = await Promise.all([group.start('api', 'api', env), group.start('worker', 'worker-a', env)]);
    const { accountId, token } = await createAccountVia(api.url, { email: 'crash@example.com', tokenName: 'crash' });

    // Baselines: every monitor checked once by the only worker.
    const paths = Array.from({ length: MONITORS }, (_, i) => `/crash/${i}.html`);
    const pages = gatedPages(sites, paths);
    const start = new Date();
    const ids: string[] = [];
    for (const [i, path] of paths.entries()) {
      const { id, due } = idDueJustBefore(start, 60);
      const url = `${sites[i % sites.length]!.url}${path}`;
      ids.push(await insertMonitorRow(shared.db, { id, accountId, url, targets: [TITLE], nextCheckAt: due, emailEnabled: true }));
    }
    const checkedSince = async (since: Date) =>
      (
        await shared.db.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM check_state WHERE monitor_id = ANY($1) AND last_checked_at >= $2',
          [ids, since],
        )
      )[0]!.n;
    await waitUntil('baselines', async () => (await checkedSince(start)) === MONITORS);

    // The page changes once; manual checks are claimed by worker-a and held mid-load.
    pages.setTitle('After');
    pages.close();
    const receipts: string[] = [];
    for (const id of ids) {
      const res = await fetch(`${api.url}/api/v1/monitors/${id}/checks`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': `crash-${id}` },
        body: '{}',
      });
      assert.equal(res.status, 202);
      receipts.push((await res.json()).data.check_id);
    }
    await waitUntil('worker-a loading every page', () => pages.waiting === MONITORS);
    const survivors: PagewatchProcess[] = await Promise.all([
      group.start('worker', 'worker-b', env),
      group.start('worker', 'worker-c', env),
    ]);
    const running = await shared.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM manual_checks WHERE id = ANY($1) AND status = 'running'",
      [receipts],
    );
    assert.equal(running[0]!.n, MONITORS, 'worker-a holds every check');

    doomed.child.kill('SIGKILL');
    await doomed.exited;
    pages.open();

    const statuses = async () =>
      (await shared.db.query<{ status: string }>('SELECT status FROM manual_checks WHERE id = ANY($1)', [receipts])).map((r) => r.status);
    // Taken over soon after the leases ran out: a deadline of the lease plus a margin, started at the kill.
    await waitUntil(
      'every receipt finished',
      async () => (await statuses()).every((s) => s === 'succeeded' || s === 'failed'),
      (LEASE_SECONDS + 10) * 1000,
    );
    assert.deepEqual(
      await statuses(),
      receipts.map(() => 'succeeded'),
    );

    const changes = await shared.db.query<{ monitor_id: string; n: number }>(
      'SELECT monitor_id, count(*)::int AS n FROM changes WHERE monitor_id = ANY($1) GROUP BY monitor_id',
      [ids],
    );
    assert.deepEqual(new Map(changes.map((c) => [c.monitor_id, c.n])), new Map(ids.map((id) => [id, 1])), 'one change per monitor');
    assert.equal((await shared.db.query('SELECT 1 FROM check_leases')).length, 0, 'no lease left');
    const takenOver = (await Promise.all(survivors.map((w) => w.metric('pagewatch_lease_expiries_total')))).reduce((a, b) => a + b, 0);
    assert.equal(takenOver, MONITORS, 'every check was a take-over');
    // Each change is queued for email once and delivered by the workers' dispatchers (no SMTP here: recorded as skipped).
    const deliveries = async () =>
      (await Promise.all(survivors.map((w) => w.metric('pagewatch_notification_deliveries_total', { channel: 'email' })))).reduce(
        (a, b) => a + b,
        0,
      );
    await waitUntil('notifications dispatched', async () => (await deliveries()) >= MONITORS, 20_000);
    const outbox = await shared.db.query<{ n: number }>('SELECT count(*)::int AS n FROM notification_outbox WHERE account_id = $1', [
      accountId,
    ]);
    assert.equal(outbox[0]!.n, MONITORS, 'one notification per change');
    const usage = await (await fetch(`${api.url}/api/v1/usage`, { headers: { authorization: `Bearer ${token}` } })).json();
    assert.equal(usage.data.checks.html.used, 2 * MONITORS, 'a take-over is not charged again');
  },
);
