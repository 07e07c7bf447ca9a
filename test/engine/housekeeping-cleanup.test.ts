import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cleanupExpired } from '../../src/engine/housekeeping.ts';
import { addToCounter } from '../../src/store/counters-store.ts';
import { bearer, createAccountWithToken, type TestApp } from '../helpers/test-app.ts';
import type { FixtureServer } from '../helpers/fixture-server.ts';
import { useMonitoringWorld } from '../helpers/monitoring-world.ts';
import { createOwner, passwordLink, signedIn } from '../helpers/dashboard-client.ts';

// What expires is also deleted: the periodic cleanup removes previews (and
// their full page captures), usage counters of long-past periods, dashboard
// sessions and password links once they are past their time, and nothing
// still valid.

let t: TestApp, site: FixtureServer;
useMonitoringWorld({ plans: { pro: { preview_spacing_seconds: 0 } } }, (w) => ({ t, site } = w));

const count = async (table: string, accountId: string) =>
  (await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE account_id = $1`, [accountId]))[0]!.n;

test('an expired preview and its capture are deleted by the cleanup; a valid one stays', async () => {
  const { accountId, token } = await createAccountWithToken(t.app, { days: 365 });
  const preview = (n: number) =>
    t.app.inject({
      method: 'POST',
      url: '/api/v1/previews',
      headers: { ...bearer(token), 'content-type': 'application/json' },
      payload: { url: `${site.url}/shop/espresso.html?h=${n}`, load_mode: 'html' },
    });
  assert.equal((await preview(1)).statusCode, 201);
  t.clock.advance(10 * 60_000);
  assert.equal((await preview(2)).statusCode, 201);
  t.clock.advance(6 * 60_000);
  const report = await cleanupExpired(t.db, t.config.plans, t.clock.now());
  assert.equal(report.previews, 1, 'the first is 16 minutes old');
  const left = await t.db.query<{ url: string }>('SELECT url FROM previews WHERE account_id = $1', [accountId]);
  assert.deepEqual(
    left.map((r) => r.url),
    [`${site.url}/shop/espresso.html?h=2`],
  );
  t.clock.advance(10 * 60_000);
  await cleanupExpired(t.db, t.config.plans, t.clock.now());
  assert.equal(await count('previews', accountId), 0);
});

test('expired dashboard sessions and password links are deleted by the cleanup; live ones stay', async () => {
  const owner = await createOwner(t.app);
  await signedIn(t.app, owner.email);
  await passwordLink(t.app, owner.accountId);
  const links = await count('password_links', owner.accountId);
  assert.equal(await count('dashboard_sessions', owner.accountId), 1);
  assert.ok(links >= 1);
  await cleanupExpired(t.db, t.config.plans, t.clock.now());
  assert.equal(await count('dashboard_sessions', owner.accountId), 1, 'a live session stays');
  assert.equal(await count('password_links', owner.accountId), links, 'links not yet expired stay');
  t.clock.advance(31 * 86_400_000);
  const report = await cleanupExpired(t.db, t.config.plans, t.clock.now());
  assert.ok(report.sessions >= 1 && report.passwordLinks >= 1);
  assert.equal(await count('dashboard_sessions', owner.accountId), 0);
  assert.equal(await count('password_links', owner.accountId), 0);
});

test('usage counters of periods that began over 62 days ago are deleted by the cleanup; this period and the last stay', async () => {
  const { accountId } = await createAccountWithToken(t.app);
  const daysAgo = (days: number) => new Date(t.clock.now().getTime() - days * 86_400_000);
  for (const days of [0, 40, 90]) await addToCounter(t.db, accountId, 'checks_html', daysAgo(days), 5);
  const report = await cleanupExpired(t.db, t.config.plans, t.clock.now());
  assert.ok(report.counters >= 1);
  const left = await t.db.query<{ period_start: Date }>(
    "SELECT period_start FROM usage_counters WHERE account_id = $1 AND metric = 'checks_html' ORDER BY period_start DESC",
    [accountId],
  );
  assert.deepEqual(
    left.map((r) => r.period_start.getTime()),
    [daysAgo(0).getTime(), daysAgo(40).getTime()],
  );
});
