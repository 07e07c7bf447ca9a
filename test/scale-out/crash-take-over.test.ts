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

// Issue #35: kill -9 of a worker's process group while it holds 20 manual
// checks, 2 of them mid-fetch and 18 claimed ahead of its slots. Its leases
// are renewed by its heartbeat, not by its claims, so the other worker takes
// every check over one lease after the last heartbeat and each page is
// fetched once more, except the two the dead worker was already fetching.

const LEASE_SECONDS = 6;
const CONCURRENCY = 18;
const MANUAL = 20;
const IN_FLIGHT = 2;
// Checks of other monitors that fill the rest of the doomed worker's slots, so its manual checks wait claimed.
const BLOCKERS = CONCURRENCY - IN_FLIGHT;
// Politeness allows two leases per host: 8 hosts for the blockers, 10 for the manual checks.
const BLOCKER_SITES = BLOCKERS / 2;
const MANUAL_SITES = MANUAL / 2;

// Held fetches wait at their gates for the whole test, however slow the machine.
const HOLD_MS = 120_000;
const gates: GatedPages[] = [];
let shared: SharedSchema, sites: FixtureServer[], group: ProcessGroup;
useSharedWorld(
  {
    sites: BLOCKER_SITES + MANUAL_SITES,
    beforeClose: () => {
      for (const gate of gates) gate.open();
    },
  },
  (w) => ({ shared, sites, group } = w),
);

test(
  'a worker killed holding 20 manual checks: every receipt is terminal within the lease + 10 s, each page fetched once (twice for the 2 in flight)',
  { skip: SKIP },
  async () => {
    const env = baseEnv({
      DATABASE_URL: shared.url,
      PAGEWATCH_TICK_SECONDS: '1',
      PAGEWATCH_WORKER_CONCURRENCY: String(CONCURRENCY),
      PAGEWATCH_LEASE_SECONDS: String(LEASE_SECONDS),
      // Manual checks may run right after the baseline; the test's own requests are not rate limited.
      PAGEWATCH_PLANS_FILE: writePlansFile({
        pro: { min_interval_minutes: { html: 0 }, manual_checks_per_day: 100, requests_per_minute: 10_000 },
      }),
    });
    const [api, doomed] = await Promise.all([group.start('api', 'api', env), group.start('worker', 'worker-a', env)]);
    const { accountId, token } = await createAccountVia(api.url, { email: 'take-over@example.com', tokenName: 'take-over' });
    const blockerSites = sites.slice(0, BLOCKER_SITES);
    const manualSites = sites.slice(BLOCKER_SITES);
    const monitorsOf = async (on: FixtureServer[], paths: string[]) => {
      const start = new Date();
      const ids: string[] = [];
      for (const [i, path] of paths.entries()) {
        const { id, due } = idDueJustBefore(start, 60);
        ids.push(
          await insertMonitorRow(shared.db, { id, accountId, url: `${on[i % on.length]!.url}${path}`, targets: [TITLE], nextCheckAt: due }),
        );
      }
      return ids;
    };

    // Baselines of the manual checks' monitors, then their pages held: a fetch started now waits at the gate.
    const paths = Array.from({ length: MANUAL }, (_, i) => `/take-over/${i}.html`);
    const manualPages = gatedPages(manualSites, paths, HOLD_MS);
    gates.push(manualPages);
    const ids = await monitorsOf(manualSites, paths);
    const baselined = async () =>
      (
        await shared.db.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM check_state WHERE monitor_id = ANY($1) AND last_checked_at IS NOT NULL',
          [ids],
        )
      )[0]!.n;
    await waitUntil('baselines', async () => (await baselined()) === MANUAL);
    const fetchesOf = (path: string, i: number) => manualSites[i % manualSites.length]!.hits.get(path) ?? 0;
    const afterBaselines = paths.map(fetchesOf);
    manualPages.close();

    const blockerPaths = Array.from({ length: BLOCKERS }, (_, i) => `/blocker/${i}.html`);
    const blockers = gatedPages(blockerSites, blockerPaths, HOLD_MS);
    gates.push(blockers);
    blockers.close();
    await monitorsOf(blockerSites, blockerPaths);
    await waitUntil('the blockers loading', () => blockers.waiting === BLOCKERS);

    const receipts: string[] = [];
    for (const id of ids) {
      const res = await fetch(`${api.url}/api/v1/monitors/${id}/checks`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': `take-over-${id}` },
        body: '{}',
      });
      assert.equal(res.status, 202);
      receipts.push((await res.json()).data.check_id);
    }
    const leased = async () =>
      (await shared.db.query<{ n: number }>('SELECT count(*)::int AS n FROM check_leases WHERE monitor_id = ANY($1)', [ids]))[0]!.n;
    await waitUntil('worker-a holding every manual check', async () => (await leased()) === MANUAL && manualPages.waiting === IN_FLIGHT);
    // Alive, worker-a keeps its leases past the first lease by its heartbeat, and nobody takes them over.
    const renewed = async () =>
      (
        await shared.db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM check_leases
           WHERE monitor_id = ANY($1) AND attempt = 1 AND lease_expires_at > claimed_at + make_interval(secs => $2)`,
          [ids, LEASE_SECONDS],
        )
      )[0]!.n;
    await waitUntil('worker-a renewing its leases', async () => (await renewed()) === MANUAL);
    const survivor = await group.start('worker', 'worker-b', env);
    assert.equal(manualPages.waiting, IN_FLIGHT, 'worker-a fetches 2 and holds 18 claimed ahead');
    const inFlight = paths.filter((path, i) => fetchesOf(path, i) > afterBaselines[i]!);
    assert.equal(inFlight.length, IN_FLIGHT);

    doomed.signalGroup('SIGKILL');
    await doomed.exited;
    const killedAt = Date.now();
    manualPages.open();
    blockers.open();

    const terminal = async () =>
      (
        await shared.db.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM manual_checks WHERE id = ANY($1) AND status NOT IN ('queued', 'running')",
          [receipts],
        )
      )[0]!.n;
    await waitUntil(
      'every receipt terminal',
      async () => (await terminal()) === MANUAL,
      killedAt + (LEASE_SECONDS + 10) * 1000 - Date.now(),
    );
    const statuses = await Promise.all(
      receipts.map(async (id) => {
        const res = await fetch(`${api.url}/api/v1/checks/${id}`, { headers: { authorization: `Bearer ${token}` } });
        return (await res.json()).data.status;
      }),
    );
    assert.deepEqual(
      statuses,
      receipts.map(() => 'succeeded'),
    );
    // A check in flight was fetched by worker-a before it died, and again by the take-over: its result was never recorded.
    assert.deepEqual(
      paths.map((path, i) => fetchesOf(path, i) - afterBaselines[i]!),
      paths.map((path) => (inFlight.includes(path) ? 2 : 1)),
    );
    assert.ok((await survivor.metric('pagewatch_lease_expiries_total')) >= MANUAL, 'worker-b took the manual checks over');
  },
);
