import { test } from 'node:test';
import assert from 'node:assert/strict';
import { idDueJustBefore } from '../helpers/due-slot.ts';
import type { FixtureServer } from '../helpers/fixture-server.ts';
import { insertMonitorRow } from '../helpers/monitor-rows.ts';
import { baseEnv, waitUntil, writePlansFile, type ProcessGroup } from '../helpers/pagewatch-process.ts';
import type { SharedSchema } from '../helpers/shared-schema.ts';
import { SHARED_WORLD_SKIP as SKIP, useSharedWorld } from '../helpers/shared-world.ts';
import { TITLE } from '../helpers/watched-page.ts';

// kill -9 of a worker while it commits finished checks in batches: every
// check it committed stays, every other one is taken over and recorded once.

const SITES = 8;
const MONITORS = 64;
const LEASE_SECONDS = 6;

let shared: SharedSchema, sites: FixtureServer[], group: ProcessGroup;
useSharedWorld({ sites: SITES }, (w) => ({ shared, sites, group } = w));

test(
  'a worker killed with -9 while committing batches: committed checks stay, the rest are taken over, each recorded once',
  { skip: SKIP },
  async () => {
    const env = baseEnv({
      DATABASE_URL: shared.url,
      PAGEWATCH_TICK_SECONDS: '1',
      PAGEWATCH_WORKER_CONCURRENCY: String(SITES * 2),
      PAGEWATCH_LEASE_SECONDS: String(LEASE_SECONDS),
      PAGEWATCH_PLANS_FILE: writePlansFile({ pro: { min_interval_minutes: { html: 0 } } }),
    });
    const doomed = await group.start('worker', 'worker-a', env);
    const [account] = await shared.db.query<{ id: string }>(
      "INSERT INTO accounts (id, email, plan, created_at, updated_at) VALUES (gen_random_uuid(), 'batch-crash@example.com', 'pro', now(), now()) RETURNING id",
    );
    assert.ok(account);
    const accountId = account.id;
    // Answers spread over a few tens of milliseconds, so checks finish all the time and commit in batches.
    let title = 'Before';
    const ids: string[] = [];
    const start = new Date();
    for (let i = 0; i < MONITORS; i++) {
      const path = `/batch-crash/${i}.html`;
      sites[i % SITES]!.route(path, async (_req, res) => {
        await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 60));
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end(`<html><body><h1 id="title">${title}</h1></body></html>`);
      });
      const { id, due } = idDueJustBefore(start, 60);
      const url = `${sites[i % SITES]!.url}${path}`;
      ids.push(await insertMonitorRow(shared.db, { id, accountId, url, targets: [TITLE], nextCheckAt: due }));
    }
    const runsSince = async (since: Date) =>
      (
        await shared.db.query<{ n: number }>('SELECT count(*)::int AS n FROM check_runs WHERE monitor_id = ANY($1) AND checked_at >= $2', [
          ids,
          since,
        ])
      )[0]!.n;
    await waitUntil('baselines', async () => (await runsSince(start)) === MONITORS, 60_000);

    title = 'After';
    const round = new Date();
    await shared.db.query(
      `INSERT INTO manual_checks (id, account_id, monitor_id, status, requested_at, expires_at)
     SELECT gen_random_uuid(), $1, m, 'queued', now(), now() + interval '1 hour' FROM unnest($2::uuid[]) AS m`,
      [accountId, ids],
    );
    await waitUntil('some checks of the round committed', async () => (await runsSince(round)) >= MONITORS / 4, 30_000);
    const committedBeforeKill = await shared.db.query<{ monitor_id: string }>('SELECT monitor_id FROM changes WHERE monitor_id = ANY($1)', [
      ids,
    ]);
    doomed.child.kill('SIGKILL');
    await doomed.exited;
    assert.ok(committedBeforeKill.length < MONITORS, 'the worker was killed in the middle of the round');

    await group.start('worker', 'worker-b', env);
    const finished = async () =>
      (
        await shared.db.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM manual_checks WHERE monitor_id = ANY($1) AND status IN ('succeeded', 'failed')",
          [ids],
        )
      )[0]!.n;
    await waitUntil('every check of the round finished', async () => (await finished()) === MONITORS, 60_000);

    const changes = await shared.db.query<{ monitor_id: string; n: number }>(
      'SELECT monitor_id, count(*)::int AS n FROM changes WHERE monitor_id = ANY($1) GROUP BY monitor_id',
      [ids],
    );
    assert.deepEqual(
      new Map(changes.map((c) => [c.monitor_id, c.n])),
      new Map(ids.map((id) => [id, 1])),
      'one change per monitor, none twice',
    );
    const kept = new Set(changes.map((c) => c.monitor_id));
    assert.ok(
      committedBeforeKill.every((c) => kept.has(c.monitor_id)),
      'every change committed before the kill is there',
    );
    const runs = await shared.db.query<{ monitor_id: string; n: number }>(
      'SELECT monitor_id, count(*)::int AS n FROM check_runs WHERE monitor_id = ANY($1) AND checked_at >= $2 GROUP BY monitor_id',
      [ids, round],
    );
    assert.deepEqual(
      new Map(runs.map((r) => [r.monitor_id, r.n])),
      new Map(ids.map((id) => [id, 1])),
      'each check of the round recorded once',
    );
    assert.equal((await shared.db.query('SELECT 1 FROM check_leases WHERE monitor_id = ANY($1)', [ids])).length, 0, 'no lease left');
  },
);
