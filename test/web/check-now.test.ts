import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SteppedEngine } from '../../src/engine/scheduler.ts';
import { type TestApp } from '../helpers/test-app.ts';
import type { FixtureServer } from '../helpers/fixture-server.ts';
import { useMonitoringWorld } from '../helpers/monitoring-world.ts';
import { insertMonitorRow } from '../helpers/monitor-rows.ts';
import { serveShop } from '../helpers/shop-page.ts';
import { TITLE } from '../helpers/watched-page.ts';
import { createOwner, signedIn } from '../helpers/dashboard-client.ts';

let t: TestApp, site: FixtureServer, engine: SteppedEngine;
useMonitoringWorld({ plans: { pro: { manual_checks_per_day: 2 } } }, (w) => ({ t, site, engine } = w));

async function ownerWithMonitor() {
  const owner = await createOwner(t.app);
  serveShop(site, `/check-${owner.accountId}.html`);
  const monitorId = await insertMonitorRow(t.db, {
    accountId: owner.accountId,
    url: `${site.url}/check-${owner.accountId}.html`,
    targets: [TITLE],
    nextCheckAt: new Date(t.clock.now().getTime() + 86_400_000),
  });
  return { ...owner, monitorId, client: await signedIn(t.app, owner.email) };
}

test('"Check now" queues the same manual check as the API and shows the receipt until it is done', async () => {
  const { monitorId, client } = await ownerWithMonitor();
  const page = await client.get(`/monitors/${monitorId}`);
  assert.match(page.body, /2 of 2 manual checks left today/);
  const key = /name="idempotency_key" value="([^"]+)"/.exec(page.body)![1]!;
  const res = await client.post(`/monitors/${monitorId}/check`, { idempotency_key: key });
  assert.equal(res.statusCode, 303);
  const location = res.headers.location as string;
  assert.match(location, new RegExp(`^/monitors/${monitorId}\\?check=[0-9a-f-]{36}#receipt$`));
  const double = await client.post(`/monitors/${monitorId}/check`, { idempotency_key: key });
  assert.equal(double.headers.location, location, 'a double submit is one request');

  const queued = await client.get(location.split('#')[0]!);
  assert.match(queued.body, /Manual check <span class="state state-queued">queued<\/span>/);
  assert.match(queued.body, /data-refresh-seconds="10"/);
  assert.match(queued.body, /1 of 2 manual checks left today/);

  await engine.runCycle();
  const done = await client.get(location.split('#')[0]!);
  assert.match(done.body, /state-succeeded/);
  assert.doesNotMatch(done.body, /data-refresh-seconds/);
  assert.match(done.body, /No change was found/);
  assert.match(done.body, /<span class="value">Espresso Duo<\/span>/, 'the captured value is the current value');
  assert.match(done.body, /<div class="muted">since <time /, 'the value is shown with when it last changed');
});

test('the daily manual-check limit is shared with the API and explained', async () => {
  const { monitorId, client } = await ownerWithMonitor();
  for (let i = 0; i < 2; i++) {
    await client.get(`/monitors/${monitorId}`);
    await client.post(`/monitors/${monitorId}/check`, { idempotency_key: `dashboard-limit-${monitorId}-${i}` });
    await engine.runCycle();
    t.clock.advance(6 * 60_000);
  }
  const page = await client.get(`/monitors/${monitorId}`);
  assert.match(page.body, /0 of 2 manual checks left today/);
  assert.match(page.body, /<button type="submit" disabled>Check now<\/button>/);
  const refused = await client.post(`/monitors/${monitorId}/check`, { idempotency_key: `dashboard-limit-${monitorId}-x` });
  assert.equal(refused.statusCode, 429);
  assert.match(refused.body, /at most 2 manual checks are accepted per UTC day/);
});

test("a paused monitor cannot be checked, and another account's receipt is not shown", async () => {
  const { monitorId, client } = await ownerWithMonitor();
  await client.get(`/monitors/${monitorId}`);
  const res = await client.post(`/monitors/${monitorId}/check`, { idempotency_key: `dashboard-own-${monitorId}` });
  const checkId = /check=([0-9a-f-]{36})/.exec(res.headers.location as string)![1];
  await client.post(`/monitors/${monitorId}/status`, { status: 'paused' });
  const paused = await client.get(`/monitors/${monitorId}`);
  assert.match(paused.body, /Resume the monitor to request a check/);
  const refused = await client.post(`/monitors/${monitorId}/check`, { idempotency_key: `dashboard-paused-${monitorId}` });
  assert.equal(refused.statusCode, 409);

  const other = await ownerWithMonitor();
  const foreign = await other.client.get(`/monitors/${other.monitorId}?check=${checkId}`);
  assert.equal(foreign.statusCode, 200);
  assert.doesNotMatch(foreign.body, /id="receipt"/);
});

test('"Check now" says when a check would run when the plan interval since the last check holds it back', async () => {
  const { monitorId, client } = await ownerWithMonitor();
  const before = await client.get(`/monitors/${monitorId}`);
  assert.doesNotMatch(before.body, /id="check-wait"/, 'a monitor never checked can be checked at once');
  const key = /name="idempotency_key" value="([^"]+)"/.exec(before.body)![1]!;
  const res = await client.post(`/monitors/${monitorId}/check`, { idempotency_key: key });
  assert.equal(res.statusCode, 303);
  await engine.runCycle();
  const checkedAt = t.clock.now();
  const after = await client.get(`/monitors/${monitorId}`);
  const earliest = new Date(checkedAt.getTime() + 5 * 60_000).toISOString();
  assert.match(after.body, new RegExp(`id="check-wait">A check requested now waits until <time datetime="${earliest.slice(0, 16)}`));
  assert.match(after.body, /at most\s+once every 5 minutes, counted from its previous check/);
  t.clock.advance(5 * 60_000);
  const later = await client.get(`/monitors/${monitorId}`);
  assert.doesNotMatch(later.body, /id="check-wait"/, 'once the interval has passed nothing holds the check back');
});
