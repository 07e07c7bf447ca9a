import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SteppedEngine } from '../../src/engine/scheduler.ts';
import { cleanupExpired } from '../../src/engine/housekeeping.ts';
import { bearer, createAccountWithToken, type TestApp } from '../helpers/test-app.ts';
import type { FixtureServer } from '../helpers/fixture-server.ts';
import { useMonitoringWorld } from '../helpers/monitoring-world.ts';
import { watchPage } from '../helpers/watched-page.ts';

let t: TestApp, site: FixtureServer, engine: SteppedEngine;
useMonitoringWorld({ plans: { pro: { retention_days: 2 } } }, (w) => ({ t, site, engine } = w));

const DAY = 86_400_000;

function get(token: string, url: string) {
  return t.app.inject({ method: 'GET', url: `/api/v1${url}`, headers: bearer(token) });
}

/** An account whose monitor recorded changes of its title: Duo → A → B → C. */
async function accountWithChanges() {
  const account = await createAccountWithToken(t.app);
  const page = await watchPage(t, site, engine, { accountId: account.accountId });
  await page.check();
  for (const title of ['A', 'B', 'C']) await page.check({ title });
  return { ...account, page };
}

test('changes are listed newest first with before and after values', async () => {
  const { token, page } = await accountWithChanges();
  const res = await get(token, '/changes');
  assert.equal(res.statusCode, 200, res.body);
  const body = res.json();
  assert.deepEqual(
    body.data.map((c: { after: { value: string } }) => c.after.value),
    ['C', 'B', 'A'],
  );
  const newest = body.data[0];
  assert.equal(newest.monitor_id, page.monitorId);
  assert.deepEqual(
    [newest.target_id, newest.kind, newest.before, newest.rule_matches],
    ['title', 'text', { value: 'B', display: 'B' }, [{ target_id: 'title', rule: 'changed' }]],
  );
  assert.equal(body.meta.next_cursor, null);
  assert.equal(res.headers['cache-control'], 'no-store');
});

test('the cursor walks the whole list and is bound to its filters', async () => {
  const { token, page } = await accountWithChanges();
  const seen: string[] = [];
  const url = `/changes?limit=2&monitor_id=${page.monitorId}`;
  let cursor: string | null = null;
  do {
    const res = await get(token, cursor ? `${url}&cursor=${encodeURIComponent(cursor)}` : url);
    assert.equal(res.statusCode, 200, res.body);
    seen.push(...res.json().data.map((c: { after: { value: string } }) => c.after.value));
    cursor = res.json().meta.next_cursor;
    if (cursor) {
      const other = await get(token, `/changes?limit=2&cursor=${encodeURIComponent(cursor)}`);
      assert.equal(other.statusCode, 400);
      assert.equal(other.json().error.code, 'malformed_cursor');
      const tampered = await get(token, `${url}&cursor=${encodeURIComponent(`x${cursor}`)}`);
      assert.equal(tampered.json().error.code, 'malformed_cursor');
    }
  } while (cursor);
  assert.deepEqual(seen, ['C', 'B', 'A']);
});

test('filters: matched, target_id, since and until', async () => {
  const { accountId, token } = await createAccountWithToken(t.app);
  const page = await watchPage(t, site, engine, {
    accountId,
    targets: [
      { id: 'title', kind: 'text', selection: { scope: 'selector', selector: '#title' }, rule: 'changed' },
      {
        id: 'price',
        kind: 'price',
        selection: { scope: 'selector', selector: '#price' },
        currency: 'EUR',
        rule: 'below',
        threshold: '10.00',
      },
    ],
  });
  await page.check();
  await page.check({ title: 'New', price: '€30.00' });
  const middle = t.clock.now();
  await page.check({ price: '€9.00' });
  const values = (res: { json(): { data: { target_id: string; after: { value: unknown } }[] } }) =>
    res.json().data.map((c) => `${c.target_id}=${c.after.value}`);
  assert.deepEqual(values(await get(token, '/changes?matched=false')), ['price=3000']);
  assert.deepEqual(values(await get(token, '/changes?matched=true')), ['price=900', 'title=New']);
  assert.deepEqual(values(await get(token, '/changes?target_id=price')), ['price=900', 'price=3000']);
  const since = encodeURIComponent(new Date(middle.getTime() + 1).toISOString());
  assert.deepEqual(values(await get(token, `/changes?since=${since}`)), ['price=900']);
  // Both changes of one capture share detected_at; their order among themselves follows the id.
  assert.deepEqual(values(await get(token, `/changes?until=${since}`)).sort(), ['price=3000', 'title=New']);
  assert.equal((await get(token, '/changes?since=yesterday')).json().error.code, 'invalid_request');
  assert.equal((await get(token, '/changes?limit=0')).statusCode, 400);
  assert.equal((await get(token, '/changes?colour=red')).json().error.code, 'unknown_parameter');
});

test('a change detail carries both captured texts and their diff', async () => {
  const { token } = await accountWithChanges();
  const [newest] = (await get(token, '/changes?limit=1')).json().data;
  const res = await get(token, `/changes/${newest.id}`);
  assert.equal(res.statusCode, 200, res.body);
  const detail = res.json().data;
  assert.deepEqual([detail.before_text, detail.after_text], ['B', 'C']);
  assert.equal(detail.diff, '--- before\n+++ after\n@@ -1,1 +1,1 @@\n-B\n+C\n');
});

test("another account's change, an unknown id and a malformed id are 404", async () => {
  const owner = await accountWithChanges();
  const stranger = await createAccountWithToken(t.app);
  const [change] = (await get(owner.token, '/changes?limit=1')).json().data;
  assert.equal((await get(stranger.token, `/changes/${change.id}`)).statusCode, 404);
  assert.equal((await get(stranger.token, '/changes')).json().data.length, 0);
  assert.equal((await get(owner.token, '/changes/00000000-0000-4000-8000-000000000000')).statusCode, 404);
  assert.equal((await get(owner.token, '/changes/not-a-uuid')).statusCode, 404);
});

test('changes past retention vanish from reads at once and are deleted by the cleanup with their texts', async () => {
  const { token } = await accountWithChanges();
  const [change] = (await get(token, '/changes?limit=1')).json().data;
  t.clock.advance(2 * DAY + 1000);
  assert.equal((await get(token, `/changes/${change.id}`)).statusCode, 404);
  assert.equal((await get(token, '/changes')).json().data.length, 0);
  const report = await cleanupExpired(t.db, t.config.plans, t.clock.now());
  assert.ok(report.changes >= 3, JSON.stringify(report));
  assert.equal((await t.db.query('SELECT 1 FROM changes WHERE id = $1', [change.id])).length, 0);
  const orphans = await t.db.query(
    `SELECT 1 FROM texts t WHERE NOT EXISTS (SELECT 1 FROM baselines b WHERE b.text_hash = t.hash)
       AND NOT EXISTS (SELECT 1 FROM changes c WHERE t.hash IN (c.before_text_hash, c.after_text_hash))`,
  );
  assert.equal(orphans.length, 0, 'texts nothing refers to are deleted');
});

test('DELETE /monitors/{id} removes the monitor and its changes', async () => {
  const { token, page } = await accountWithChanges();
  const res = await t.app.inject({ method: 'DELETE', url: `/api/v1/monitors/${page.monitorId}`, headers: bearer(token) });
  assert.equal(res.statusCode, 204, res.body);
  assert.equal((await get(token, '/changes')).json().data.length, 0);
  assert.equal((await t.db.query('SELECT 1 FROM baselines WHERE monitor_id = $1', [page.monitorId])).length, 0);
});
