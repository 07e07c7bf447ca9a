import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SteppedEngine } from '../../src/engine/scheduler.ts';
import { bearer, createAccountWithToken, type TestApp } from '../helpers/test-app.ts';
import type { FixtureServer } from '../helpers/fixture-server.ts';
import { useMonitoringWorld } from '../helpers/monitoring-world.ts';
import { updateMonitorRow } from '../helpers/monitor-rows.ts';
import { PRICE, TITLE, watchPage } from '../helpers/watched-page.ts';
import { createOwner, signedIn } from '../helpers/dashboard-client.ts';

let t: TestApp, site: FixtureServer, engine: SteppedEngine;
useMonitoringWorld({}, (w) => ({ t, site, engine } = w));

async function observations(token: string, monitorId: string) {
  const res = await t.app.inject({ method: 'GET', url: `/api/v1/monitors/${monitorId}`, headers: bearer(token) });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().data.observations as {
    target_id: string;
    value: unknown;
    display: string | null;
    since: string | null;
    issues: { code: string }[];
  }[];
}

test("GET /monitors/{id} carries each target's current value, since when it holds, and no issues", async () => {
  const { accountId, token } = await createAccountWithToken(t.app);
  const page = await watchPage(t, site, engine, { accountId, targets: [TITLE, PRICE] });
  assert.deepEqual(
    await observations(token, page.monitorId),
    [
      { target_id: 'title', value: null, display: null, since: null, issues: [] },
      { target_id: 'price', value: null, display: null, since: null, issues: [] },
    ],
    'nothing captured yet',
  );
  await page.check();
  const firstSeen = t.clock.now().toISOString();
  const [title, price] = await observations(token, page.monitorId);
  assert.deepEqual(title, { target_id: 'title', value: 'Espresso Duo', display: 'Espresso Duo', since: firstSeen, issues: [] });
  assert.deepEqual(price, { target_id: 'price', value: 2900, display: '29.00 EUR', since: firstSeen, issues: [] });

  await page.check();
  assert.equal((await observations(token, page.monitorId))[1]?.since, firstSeen, 'an unchanged value keeps its since');
  await page.check({ price: '€25.00' });
  const changed = (await observations(token, page.monitorId))[1];
  assert.equal(changed?.value, 2500);
  assert.equal(changed?.since, t.clock.now().toISOString());
});

test('a target the latest check could not read keeps its last value, with the issue next to it', async () => {
  const { accountId, token } = await createAccountWithToken(t.app);
  const page = await watchPage(t, site, engine, { accountId, targets: [TITLE, PRICE] });
  await page.check();
  await page.check({ price: '' });
  const [title, price] = await observations(token, page.monitorId);
  assert.deepEqual(title?.issues, []);
  assert.equal(price?.value, 2900, 'the last value known');
  assert.ok(price?.issues.length, 'with the issue that made it stale');

  const owner = await createOwner(t.app);
  await t.db.query('UPDATE monitors SET account_id = $2 WHERE id = $1', [page.monitorId, owner.accountId]);
  const client = await signedIn(t.app, owner.email);
  const html = (await client.get(`/monitors/${page.monitorId}`)).body;
  assert.match(html, /<div class="stale">stale — the latest check could not read it: [a-z_]+<\/div>/);
});

test('a target whose selection changed has no current value until its next capture', async () => {
  const { accountId, token } = await createAccountWithToken(t.app);
  const page = await watchPage(t, site, engine, { accountId, targets: [TITLE] });
  await page.check();
  await updateMonitorRow(t.db, page.monitorId, { targets: [{ ...TITLE, selection: { scope: 'page' } }] });
  assert.deepEqual(await observations(token, page.monitorId), [
    { target_id: 'title', value: null, display: null, since: null, issues: [] },
  ]);
});
