import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FixtureServer } from '../helpers/fixture-server.ts';
import { baseEnv, createAccountVia, waitUntil, writePlansFile, type ProcessGroup } from '../helpers/pagewatch-process.ts';
import type { SharedSchema } from '../helpers/shared-schema.ts';
import { SHARED_WORLD_SKIP as SKIP, useSharedWorld } from '../helpers/shared-world.ts';

// Issue #35: a manual check requested for a new monitor whose first capture
// is still to come is that first capture. 40 monitors made through the API,
// a manual check requested for each at once, two workers: 40 fetches, also
// once every first slot the monitors were given at creation has passed.

const MONITORS = 40;
const SITES = 10;
const TICK_SECONDS = 1;
const INTERVAL_MINUTES = 5;
/** The first slots, from this many seconds after the monitors are made, one every 0.2 s. */
const FIRST_SLOTS_FROM_S = 5;

let shared: SharedSchema, sites: FixtureServer[], group: ProcessGroup;
// Politeness allows two checks per host at once: several hosts let both workers take part.
useSharedWorld({ sites: SITES }, (w) => ({ shared, sites, group } = w));

test(
  '40 new monitors with a manual check requested for each at once: 40 fetches, the manual check is the first capture',
  { skip: SKIP },
  async () => {
    const env = baseEnv({
      DATABASE_URL: shared.url,
      PAGEWATCH_TICK_SECONDS: String(TICK_SECONDS),
      PAGEWATCH_PLANS_FILE: writePlansFile({
        pro: { requests_per_minute: 10_000, previews_per_day: 100, preview_spacing_seconds: 0, manual_checks_per_day: 100 },
      }),
    });
    const api = await group.start('api', 'api', env);
    const { token } = await createAccountVia(api.url, { email: 'first-capture@example.com', tokenName: 'first-capture' });
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };

    const pages = Array.from({ length: MONITORS }, (_, i) => ({ site: sites[i % SITES]!, path: `/first/${i}.html` }));
    for (const { site, path } of pages) {
      site.route(path, (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<html><body><h1 id="title">First</h1></body></html>');
      });
    }
    const ids: string[] = [];
    for (const [i, { site, path }] of pages.entries()) {
      const preview = await fetch(`${api.url}/api/v1/previews`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ url: `${site.url}${path}`, load_mode: 'html' }),
      });
      assert.equal(preview.status, 201);
      const created = await fetch(`${api.url}/api/v1/monitors`, {
        method: 'POST',
        headers: { ...headers, 'idempotency-key': `first-capture-${i}` },
        body: JSON.stringify({
          preview_id: (await preview.json()).data.id,
          targets: [{ id: 'title', label: 'Title', kind: 'text', selection: { scope: 'selector', selector: '#title' }, rule: 'changed' }],
          interval_minutes: INTERVAL_MINUTES,
        }),
      });
      assert.equal(created.status, 201);
      ids.push((await created.json()).data.id);
    }
    // Creation spreads the first slots over the next minute (initialDueAt, tested in test/domain): brought within
    // seconds, still spread, so that the test need not wait that minute for every one of them to pass.
    const firstSlots = await shared.db.query<{ next_check_at: Date }>(
      `UPDATE check_state c SET next_check_at = now() + make_interval(secs => ${FIRST_SLOTS_FROM_S} + s.i * 0.2)
         FROM unnest($1::uuid[]) WITH ORDINALITY s(id, i) WHERE c.monitor_id = s.id
       RETURNING c.next_check_at`,
      [ids],
    );
    assert.equal(firstSlots.length, MONITORS);
    const lastFirstSlot = Math.max(...firstSlots.map((r) => r.next_check_at.getTime()));

    // The checks are requested before the workers start, so that no first capture can come before its monitor's request.
    const requests = await Promise.all(
      ids.map((id) =>
        fetch(`${api.url}/api/v1/monitors/${id}/checks`, {
          method: 'POST',
          headers: { ...headers, 'idempotency-key': `check-${id}` },
          body: '{}',
        }),
      ),
    );
    assert.deepEqual(
      requests.map((r) => r.status),
      ids.map(() => 202),
    );
    const receipts = await Promise.all(requests.map(async (r) => (await r.json()).data.check_id as string));
    await Promise.all([group.start('worker', 'worker-a', env), group.start('worker', 'worker-b', env)]);

    const terminal = async () =>
      (
        await shared.db.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM manual_checks WHERE id = ANY($1) AND status NOT IN ('queued', 'running')",
          [receipts],
        )
      )[0]!.n;
    await waitUntil('every receipt terminal', async () => (await terminal()) === MONITORS, 60_000);
    const statuses = await Promise.all(
      receipts.map(async (id) => (await (await fetch(`${api.url}/api/v1/checks/${id}`, { headers })).json()).data.status),
    );
    assert.deepEqual(
      statuses,
      receipts.map(() => 'succeeded'),
    );

    // Each page was fetched once by its preview; past every first slot and a few cycles after it, once more by its check.
    const checkFetches = () => pages.reduce((sum, { site, path }) => sum + (site.hits.get(path) ?? 0) - 1, 0);
    assert.equal(checkFetches(), MONITORS);
    await waitUntil('every first slot passed three cycles ago', () => Date.now() > lastFirstSlot + 3 * TICK_SECONDS * 1000, 90_000);
    assert.equal(checkFetches(), MONITORS, 'no scheduled first capture after the manual check');
    const early = await shared.db.query<{ monitor_id: string }>(
      `SELECT monitor_id FROM check_state
     WHERE monitor_id = ANY($1) AND next_check_at < last_checked_at + make_interval(mins => $2)`,
      [ids, INTERVAL_MINUTES],
    );
    assert.deepEqual(early, [], 'every next check is an interval after the manual one');
  },
);
