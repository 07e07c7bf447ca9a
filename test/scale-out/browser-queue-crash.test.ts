import { test } from 'node:test';
import assert from 'node:assert/strict';
import { idDueJustBefore } from '../helpers/due-slot.ts';
import type { FixtureServer } from '../helpers/fixture-server.ts';
import { gatedPages } from '../helpers/gated-page.ts';
import { insertMonitorRow } from '../helpers/monitor-rows.ts';
import { baseEnv, createAccountVia, waitUntil, type ProcessGroup } from '../helpers/pagewatch-process.ts';
import type { SharedSchema } from '../helpers/shared-schema.ts';
import { SHARED_WORLD_SKIP as SKIP, useSharedWorld } from '../helpers/shared-world.ts';
import { TITLE } from '../helpers/watched-page.ts';

// kill -9 of a worker (and its Chromium) holding more browser checks than its
// browser has pages (DESIGN §1 Work queues: 2 pages, up to 4 checks wait for
// one): the checks waiting in its render queue are leased to it as much as
// the running ones, and the other worker takes every one of them over once
// the leases run out, running each once.

// 2 pages and 4 waiting: every browser check one process holds at once.
const PAGES = 2;
const MONITORS = 6;
const MANUAL = 2;
const LEASE_SECONDS = 6;

let shared: SharedSchema, sites: FixtureServer[], group: ProcessGroup;
// Two monitors per site: a host takes two checks at once (host politeness).
useSharedWorld({ sites: 3 }, (w) => ({ shared, sites, group } = w));

test(
  'a worker killed with -9 with browser checks queued behind its pages: the other takes every one over after the lease and runs each once',
  { skip: SKIP },
  async () => {
    const env = baseEnv({
      DATABASE_URL: shared.url,
      PAGEWATCH_TICK_SECONDS: '1',
      PAGEWATCH_WORKER_CONCURRENCY: '8',
      PAGEWATCH_LEASE_SECONDS: String(LEASE_SECONDS),
    });
    const api = await group.start('api', 'api', env);
    const { accountId, token } = await createAccountVia(api.url, { email: 'browser-queue@example.com', tokenName: 'queue' });
    const paths = Array.from({ length: MONITORS }, (_, i) => `/browser-queue/${i}.html`);
    const pages = gatedPages(sites, paths);
    pages.close();

    // The first monitors are due on their schedule; the last ones run only by a manual check.
    const start = new Date();
    const ids: string[] = [];
    for (const [i, path] of paths.entries()) {
      const { id, due } = idDueJustBefore(start, 60);
      const nextCheckAt = i < MONITORS - MANUAL ? due : new Date('2100-01-01T00:00:00Z');
      const url = `${sites[i % sites.length]!.url}${path}`;
      ids.push(await insertMonitorRow(shared.db, { id, accountId, url, loadMode: 'browser', targets: [TITLE], nextCheckAt }));
    }
    const receipts: string[] = [];
    for (const id of ids.slice(MONITORS - MANUAL)) {
      const res = await fetch(`${api.url}/api/v1/monitors/${id}/checks`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': `queue-${id}` },
        body: '{}',
      });
      assert.equal(res.status, 202, await res.clone().text());
      receipts.push((await res.json()).data.check_id);
    }

    const leased = async () =>
      (await shared.db.query<{ n: number }>('SELECT count(*)::int AS n FROM check_leases WHERE monitor_id = ANY($1)', [ids]))[0]!.n;
    const doomed = await group.start('worker', 'worker-a', env);
    const queued = () => doomed.metric('pagewatch_work_queue_depth', { queue: 'browser', lane: 'check' });
    await waitUntil(
      'worker-a loading on every page, the rest of its checks queued for one',
      async () => pages.waiting === PAGES && (await queued()) === MONITORS - PAGES && (await leased()) === MONITORS,
      120_000,
    );

    // The whole group: Chromium goes with its worker, as under a supervisor.
    doomed.signalGroup('SIGKILL');
    await doomed.exited;
    pages.open();
    const survivor = await group.start('worker', 'worker-b', env);

    const runs = async () =>
      shared.db.query<{ monitor_id: string; n: number }>(
        'SELECT monitor_id, count(*)::int AS n FROM check_runs WHERE monitor_id = ANY($1) GROUP BY monitor_id',
        [ids],
      );
    // A deadline of the lease plus a margin for Chromium's start, started at the kill.
    await waitUntil(
      'every check run',
      async () => (await runs()).length === MONITORS && (await leased()) === 0,
      (LEASE_SECONDS + 60) * 1000,
    );
    assert.deepEqual(new Map((await runs()).map((r) => [r.monitor_id, r.n])), new Map(ids.map((id) => [id, 1])), 'each check ran once');
    assert.equal(await survivor.metric('pagewatch_lease_expiries_total'), MONITORS, 'every check was a take-over');
    const statuses = await shared.db.query<{ status: string }>('SELECT status FROM manual_checks WHERE id = ANY($1)', [receipts]);
    assert.deepEqual(
      statuses.map((s) => s.status),
      receipts.map(() => 'succeeded'),
    );
  },
);
