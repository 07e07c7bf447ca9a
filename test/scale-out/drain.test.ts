import { test } from 'node:test';
import assert from 'node:assert/strict';
import { idDueJustBefore } from '../helpers/due-slot.ts';
import type { FixtureServer } from '../helpers/fixture-server.ts';
import { gatedPages, type GatedPages } from '../helpers/gated-page.ts';
import { insertMonitorRow } from '../helpers/monitor-rows.ts';
import { firstOf } from '../helpers/deadline.ts';
import { baseEnv, createAccountVia, waitUntil, type ProcessGroup } from '../helpers/pagewatch-process.ts';
import type { SharedSchema } from '../helpers/shared-schema.ts';
import { SHARED_WORLD_SKIP as SKIP, useSharedWorld } from '../helpers/shared-world.ts';
import { TITLE } from '../helpers/watched-page.ts';

// SIGTERM, as an orchestrator sends it before replacing a process: requests
// under way are answered, checks under way finish within
// PAGEWATCH_SHUTDOWN_GRACE_SECONDS, a check that cannot is handed back, and
// no lease stays held after the worker has exited.

const GRACE_SECONDS = 4;

const gates: GatedPages[] = [];
let shared: SharedSchema, sites: FixtureServer[], group: ProcessGroup;
useSharedWorld(
  {
    sites: 2,
    beforeClose: () => {
      for (const gate of gates) gate.open();
    },
  },
  (w) => ({ shared, sites, group } = w),
);

test(
  'SIGTERM drains: requests and checks under way finish, a check past the grace is handed back, no lease stays held',
  { skip: SKIP },
  async () => {
    // At info level, so each process's "SIGTERM: draining" line shows when it started its drain.
    const env = baseEnv({
      DATABASE_URL: shared.url,
      LOG_LEVEL: 'info',
      PAGEWATCH_TICK_SECONDS: '1',
      PAGEWATCH_SHUTDOWN_GRACE_SECONDS: String(GRACE_SECONDS),
    });
    const [api, worker] = await Promise.all([group.start('api', 'api', env), group.start('worker', 'worker', env)]);
    const { accountId, token } = await createAccountVia(api.url, { email: 'drain@example.com', tokenName: 'drain' });

    // Three checks that finish soon after SIGTERM, one that would not finish within the grace.
    const quick = gatedPages([sites[0]!], ['/q0.html', '/q1.html']);
    // Held far longer than the test needs: the worker must leave while it still is.
    const stuck = gatedPages([sites[1]!], ['/stuck.html'], 120_000);
    gates.push(quick, stuck);
    quick.close();
    stuck.close();
    const start = new Date();
    const monitor = async (url: string) => {
      const { id, due } = idDueJustBefore(start, 60);
      return insertMonitorRow(shared.db, { id, accountId, url, targets: [TITLE], nextCheckAt: due });
    };
    const quickIds = [await monitor(`${sites[0]!.url}/q0.html`), await monitor(`${sites[0]!.url}/q1.html`)];
    const stuckId = await monitor(`${sites[1]!.url}/stuck.html`);
    await waitUntil('all three checks loading', () => quick.waiting === 2 && stuck.waiting === 1);

    // A request under way at the API: its preview load is held too.
    const inFlight = fetch(`${api.url}/api/v1/previews`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: `${sites[0]!.url}/q0.html`, load_mode: 'html' }),
    });
    await waitUntil('the preview loading', () => quick.waiting === 3);

    api.child.kill('SIGTERM');
    worker.child.kill('SIGTERM');
    // The grace is the contract: the worker may not leave before a timer of the grace started with the signal
    // (it starts its own grace later, on receipt), and it leaves while the stuck page is still held, unanswered.
    const workerLeft = firstOf(worker.exited, GRACE_SECONDS * 1000);
    await waitUntil('both draining', () => [api, worker].every((p) => p.output().includes('SIGTERM: draining')));
    quick.open();
    assert.equal((await inFlight).status, 201, 'the request under way was answered');
    assert.equal(await api.exited, 0);
    assert.equal(await workerLeft, 'timer', 'the worker left before the grace for the stuck check ran out');
    assert.equal(await worker.exited, 0);
    assert.equal(stuck.waiting, 1, 'the worker waited for the stuck check past the grace');

    const rows = await shared.db.query<{ id: string; last_checked_at: Date | null }>(
      'SELECT m.id, s.last_checked_at FROM monitors m JOIN check_state s ON s.monitor_id = m.id WHERE m.account_id = $1',
      [accountId],
    );
    const checked = new Map(rows.map((r) => [r.id, r.last_checked_at !== null]));
    assert.deepEqual(
      quickIds.map((id) => checked.get(id)),
      [true, true],
      'checks under way finished',
    );
    assert.equal(checked.get(stuckId), false, 'the stuck check was not recorded');
    const held = await shared.db.query('SELECT monitor_id FROM check_leases WHERE lease_expires_at > now()');
    assert.deepEqual(held, [], 'no lease held after exit');
    const handedBack = await shared.db.query<{ monitor_id: string; reserved_metric: string | null }>(
      'SELECT monitor_id, reserved_metric FROM check_leases',
    );
    assert.deepEqual(handedBack, [{ monitor_id: stuckId, reserved_metric: null }], 'the stuck check is handed back, its charge refunded');
  },
);
