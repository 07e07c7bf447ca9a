import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Engine } from '../../src/engine/scheduler.ts';
import { writeBaselines } from '../../src/store/baselines-store.ts';
import { bearer, createAccountWithToken, type TestApp } from '../helpers/test-app.ts';
import type { FixtureServer } from '../helpers/fixture-server.ts';
import { useMonitoringWorld } from '../helpers/monitoring-world.ts';
import { PRICE, TITLE, watchPage } from '../helpers/watched-page.ts';

// GET /monitors/{id} answers what the store holds at that moment, whoever
// changed it last. On the embedded store the monitor is kept in memory after
// a read, so each test reads it first, changes it, and reads it again.

let t: TestApp, site: FixtureServer, engine: Engine;
useMonitoringWorld({}, (w) => ({ t, site, engine } = w));

async function readMonitor(token: string, id: string) {
  const res = await t.app.inject({ method: 'GET', url: `/api/v1/monitors/${id}`, headers: bearer(token) });
  return { status: res.statusCode, data: res.statusCode === 200 ? res.json().data : null };
}

async function watched() {
  const { accountId, token } = await createAccountWithToken(t.app);
  const page = await watchPage(t, site, engine, { accountId, targets: [TITLE, PRICE] });
  await page.check();
  return { accountId, token, page };
}

test('a check by the engine shows on the next GET: its time, its issues and the new observation', async () => {
  const { token, page } = await watched();
  const before = (await readMonitor(token, page.monitorId)).data;
  t.clock.advance(60_000);
  await page.check({ price: '€25.00' });
  const after = (await readMonitor(token, page.monitorId)).data;
  assert.notEqual(after.last_checked_at, before.last_checked_at);
  assert.equal(after.last_checked_at, t.clock.now().toISOString());
  assert.deepEqual(after.observations.find((o: { target_id: string }) => o.target_id === 'price').display, '25.00 EUR');
  await page.check({ price: '' });
  const failing = (await readMonitor(token, page.monitorId)).data;
  assert.deepEqual(
    failing.last_issues.map((i: { target_id: string }) => i.target_id),
    ['price'],
  );
});

test('a change through the API shows on the next GET', async () => {
  const { token, page } = await watched();
  await readMonitor(token, page.monitorId);
  const patched = await t.app.inject({
    method: 'PATCH',
    url: `/api/v1/monitors/${page.monitorId}`,
    headers: bearer(token),
    payload: { name: 'Espresso machine', status: 'paused' },
  });
  assert.equal(patched.statusCode, 200, patched.body);
  const after = (await readMonitor(token, page.monitorId)).data;
  assert.equal(after.name, 'Espresso machine');
  assert.equal(after.status, 'paused');
});

test('a change made in the store by hand shows on the next GET', async () => {
  const { token, page } = await watched();
  await readMonitor(token, page.monitorId);
  await t.db.query('UPDATE monitors SET labels = \'["by-hand"]\' WHERE id = $1', [page.monitorId]);
  assert.deepEqual((await readMonitor(token, page.monitorId)).data.labels, ['by-hand']);
  await t.db.query("UPDATE check_state SET last_issues = '[]', failing_since = $2 WHERE monitor_id = $1", [page.monitorId, t.clock.now()]);
  assert.equal((await readMonitor(token, page.monitorId)).data.failing_since, t.clock.now().toISOString());
});

test('a baseline written in a transaction shows on the next GET once committed', async () => {
  const { token, page } = await watched();
  await readMonitor(token, page.monitorId);
  await t.db.transaction(async (tx) => {
    const [title] = await tx.query<{ fingerprint: string }>('SELECT fingerprint FROM baselines WHERE monitor_id = $1 AND target_id = $2', [
      page.monitorId,
      'title',
    ]);
    await writeBaselines(tx, [
      {
        monitor_id: page.monitorId,
        target_id: 'title',
        fingerprint: title!.fingerprint,
        value: 'Written by hand',
        display: 'Written by hand',
        text_hash: null,
        seen_links: [],
        updated_at: t.clock.now(),
        pending_value: null,
        pending_since: null,
      },
    ]);
  });
  const observations = (await readMonitor(token, page.monitorId)).data.observations;
  assert.equal(observations.find((o: { target_id: string }) => o.target_id === 'title').value, 'Written by hand');
});

test('a deleted monitor is not found on the next GET', async () => {
  const { token, page } = await watched();
  await readMonitor(token, page.monitorId);
  const deleted = await t.app.inject({ method: 'DELETE', url: `/api/v1/monitors/${page.monitorId}`, headers: bearer(token) });
  assert.equal(deleted.statusCode, 204);
  assert.equal((await readMonitor(token, page.monitorId)).status, 404);
});

test("a monitor another account has just read is not found with this account's token", async () => {
  const { token, page } = await watched();
  const other = await createAccountWithToken(t.app);
  assert.equal((await readMonitor(token, page.monitorId)).status, 200);
  assert.equal((await readMonitor(other.token, page.monitorId)).status, 404);
});
