import { test } from 'node:test';
import assert from 'node:assert/strict';
import { idDueJustBefore } from '../helpers/due-slot.ts';
import type { FixtureServer } from '../helpers/fixture-server.ts';
import { gatedPages, type GatedPages } from '../helpers/gated-page.ts';
import { insertMonitorRow } from '../helpers/monitor-rows.ts';
import { baseEnv, createAccountVia, waitUntil, writePlansFile, type ProcessGroup } from '../helpers/pagewatch-process.ts';
import type { SharedSchema } from '../helpers/shared-schema.ts';
import { SHARED_WORLD_SKIP as SKIP, useSharedWorld } from '../helpers/shared-world.ts';
import { TITLE } from '../helpers/watched-page.ts';

// Issue #35: SIGTERM of a worker that holds checks it claimed ahead of its
// slots hands them back at once, so another worker runs them within seconds.
// The lease is long (120 s) and the stopping worker is still draining its
// checks under way: only the hand-back can explain a quick take-over.

const LEASE_SECONDS = 120;
const GRACE_SECONDS = 60;
const CONCURRENCY = 4;
// A worker claims as many checks again as it has slots: these wait for a slot of the stopping worker.
const CLAIMED_AHEAD = CONCURRENCY;
const TAKE_OVER_MS = 10_000;

// Held fetches wait at their gates for the whole test, however slow the machine.
const HOLD_MS = 120_000;
const gates: GatedPages[] = [];
let shared: SharedSchema, sites: FixtureServer[], group: ProcessGroup;
// Politeness allows two leases per host: two hosts for the checks under way, two for those claimed ahead.
useSharedWorld(
  {
    sites: 4,
    beforeClose: () => {
      for (const gate of gates) gate.open();
    },
  },
  (w) => ({ shared, sites, group } = w),
);

test(
  'SIGTERM hands back the checks a worker claimed but had not started: another worker runs them within seconds',
  { skip: SKIP },
  async () => {
    const env = baseEnv({
      DATABASE_URL: shared.url,
      PAGEWATCH_TICK_SECONDS: '1',
      PAGEWATCH_WORKER_CONCURRENCY: String(CONCURRENCY),
      PAGEWATCH_LEASE_SECONDS: String(LEASE_SECONDS),
      PAGEWATCH_SHUTDOWN_GRACE_SECONDS: String(GRACE_SECONDS),
      PAGEWATCH_PLANS_FILE: writePlansFile({ pro: { requests_per_minute: 10_000 } }),
    });
    const [api, stopping] = await Promise.all([group.start('api', 'api', env), group.start('worker', 'worker-a', env)]);
    const { accountId, token } = await createAccountVia(api.url, { email: 'hand-back@example.com', tokenName: 'hand-back' });
    const busySites = sites.slice(0, 2);
    const aheadSites = sites.slice(2);

    // Checks under way that stay under way: they fill worker-a's slots.
    const busyPaths = Array.from({ length: CONCURRENCY }, (_, i) => `/busy/${i}.html`);
    const busy = gatedPages(busySites, busyPaths, HOLD_MS);
    gates.push(busy);
    busy.close();
    for (const [i, path] of busyPaths.entries()) {
      const { id, due } = idDueJustBefore(new Date(), 60);
      await insertMonitorRow(shared.db, { id, accountId, url: `${busySites[i % 2]!.url}${path}`, targets: [TITLE], nextCheckAt: due });
    }
    await waitUntil('worker-a loading its checks', () => busy.waiting === CONCURRENCY);

    // Manual checks of monitors next due in an hour: worker-a claims them ahead, with no slot to start them.
    const aheadPaths = Array.from({ length: CLAIMED_AHEAD }, (_, i) => `/ahead/${i}.html`);
    const ids: string[] = [];
    const receipts: string[] = [];
    for (const [i, path] of aheadPaths.entries()) {
      const site = aheadSites[i % 2]!;
      site.route(path, (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<html><body><h1 id="title">Ahead</h1></body></html>');
      });
      const id = await insertMonitorRow(shared.db, {
        accountId,
        url: `${site.url}${path}`,
        targets: [TITLE],
        nextCheckAt: new Date(Date.now() + 3_600_000),
      });
      const res = await fetch(`${api.url}/api/v1/monitors/${id}/checks`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': `hand-back-${id}` },
        body: '{}',
      });
      assert.equal(res.status, 202);
      ids.push(id);
      receipts.push((await res.json()).data.check_id);
    }
    const leased = async () =>
      (await shared.db.query<{ n: number }>('SELECT count(*)::int AS n FROM check_leases WHERE monitor_id = ANY($1)', [ids]))[0]!.n;
    await waitUntil('worker-a holding every manual check', async () => (await leased()) === CLAIMED_AHEAD);
    const fetches = () => aheadPaths.map((path, i) => aheadSites[i % 2]!.hits.get(path) ?? 0);
    assert.deepEqual(
      fetches(),
      aheadPaths.map(() => 0),
      'claimed ahead, not started',
    );
    await group.start('worker', 'worker-b', env);

    stopping.child.kill('SIGTERM');
    const terminal = async () =>
      (
        await shared.db.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM manual_checks WHERE id = ANY($1) AND status NOT IN ('queued', 'running')",
          [receipts],
        )
      )[0]!.n;
    await waitUntil('every receipt terminal', async () => (await terminal()) === CLAIMED_AHEAD, TAKE_OVER_MS);
    assert.equal(stopping.child.exitCode, null, 'worker-a is still draining its checks under way');
    const statuses = await Promise.all(
      receipts.map(
        async (id) =>
          (await (await fetch(`${api.url}/api/v1/checks/${id}`, { headers: { authorization: `Bearer ${token}` } })).json()).data.status,
      ),
    );
    assert.deepEqual(
      statuses,
      receipts.map(() => 'succeeded'),
    );
    assert.deepEqual(
      fetches(),
      aheadPaths.map(() => 1),
      'each handed-back check fetched once, by worker-b',
    );
  },
);
