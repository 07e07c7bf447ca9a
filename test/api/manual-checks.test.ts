import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SteppedEngine } from '../../src/engine/scheduler.ts';
import { cancelPendingChecks } from '../../src/services/manual-checks.ts';
import { admin, bearer, createAccountWithToken, type TestApp } from '../helpers/test-app.ts';
import type { FixtureServer } from '../helpers/fixture-server.ts';
import { useMonitoringWorld } from '../helpers/monitoring-world.ts';
import { insertMonitorRow, updateMonitorRow } from '../helpers/monitor-rows.ts';
import { serveShop } from '../helpers/shop-page.ts';
import { TITLE } from '../helpers/watched-page.ts';

let t: TestApp, site: FixtureServer, engine: SteppedEngine;
useMonitoringWorld({ plans: { pro: { manual_checks_per_day: 3 } } }, (w) => ({ t, site, engine } = w));

const MINUTE = 60_000;
let n = 0;

/** An account with a monitor whose schedule is a day away, so only manual checks run it. */
async function setup() {
  const account = await createAccountWithToken(t.app);
  await t.db.query("UPDATE monitors SET status = 'paused'");
  const path = `/manual-${++n}.html`;
  const setPage = serveShop(site, path);
  const monitorId = await insertMonitorRow(t.db, {
    accountId: account.accountId,
    url: `${site.url}${path}`,
    targets: [TITLE],
    nextCheckAt: new Date(t.clock.now().getTime() + 86_400_000),
  });
  return { ...account, monitorId, path, setPage };
}

function requestCheck(token: string, monitorId: string, key = `key-${Math.random().toString(36).slice(2)}`, body: unknown = {}) {
  return t.app.inject({
    method: 'POST',
    url: `/api/v1/monitors/${monitorId}/checks`,
    headers: { ...bearer(token), 'content-type': 'application/json', 'idempotency-key': key },
    payload: JSON.stringify(body),
  });
}

function receipt(token: string, checkId: string) {
  return t.app.inject({ method: 'GET', url: `/api/v1/checks/${checkId}`, headers: bearer(token) });
}

async function usage(token: string) {
  return (await t.app.inject({ method: 'GET', url: '/api/v1/usage', headers: bearer(token) })).json().data;
}

test('a manual check is accepted as queued, run by the next cycle and ends succeeded with its changes', async () => {
  const s = await setup();
  const res = await requestCheck(s.token, s.monitorId);
  assert.equal(res.statusCode, 202, res.body);
  const accepted = res.json().data;
  assert.equal(res.headers.location, `/api/v1/checks/${accepted.check_id}`);
  assert.equal(res.headers['retry-after'], '60');
  assert.deepEqual([accepted.monitor_id, accepted.status, accepted.started_at, accepted.changes], [s.monitorId, 'queued', null, []]);
  const queued = await receipt(s.token, accepted.check_id);
  assert.deepEqual([queued.statusCode, queued.json().data.status, queued.headers['retry-after']], [200, 'queued', '60']);

  await engine.runCycle();
  const seeded = await receipt(s.token, accepted.check_id);
  assert.equal(seeded.json().data.status, 'succeeded');
  assert.deepEqual(seeded.json().data.changes, [], 'the first capture seeds the baseline');
  assert.equal(seeded.headers['retry-after'], undefined);
  const used = await usage(s.token);
  assert.deepEqual([used.api.manual_checks.used, used.checks.html.used], [1, 1]);

  t.clock.advance(5 * MINUTE);
  s.setPage({ title: 'Changed' });
  const second = (await requestCheck(s.token, s.monitorId)).json().data;
  await engine.runCycle();
  const done = (await receipt(s.token, second.check_id)).json().data;
  assert.equal(done.status, 'succeeded');
  assert.equal(done.changes.length, 1);
  const change = await t.app.inject({ method: 'GET', url: `/api/v1/changes/${done.changes[0]}`, headers: bearer(s.token) });
  assert.equal(change.json().data.after.value, 'Changed');
});

test("a manual check waits for the plan's fastest interval after the previous capture", async () => {
  const s = await setup();
  await requestCheck(s.token, s.monitorId);
  await engine.runCycle();
  t.clock.advance(MINUTE);
  const queued = (await requestCheck(s.token, s.monitorId)).json().data;
  assert.deepEqual((await engine.runCycle()).claimed, []);
  assert.equal((await receipt(s.token, queued.check_id)).json().data.status, 'queued');
  t.clock.advance(4 * MINUTE);
  await engine.runCycle();
  assert.equal((await receipt(s.token, queued.check_id)).json().data.status, 'succeeded');
  assert.equal(site.hits.get(s.path), 2);
});

test('a pending request is returned again without a new daily charge; a replay returns the original acceptance', async () => {
  const s = await setup();
  const first = await requestCheck(s.token, s.monitorId, 'replay-key-1');
  const again = await requestCheck(s.token, s.monitorId, 'another-key-2');
  assert.equal(again.statusCode, 202);
  assert.equal(again.json().data.check_id, first.json().data.check_id);
  assert.equal((await usage(s.token)).api.manual_checks.used, 1);

  await engine.runCycle();
  const replay = await requestCheck(s.token, s.monitorId, 'replay-key-1');
  assert.equal(replay.statusCode, 202);
  assert.equal(replay.headers['idempotency-replayed'], 'true');
  assert.deepEqual(replay.json(), first.json(), 'the original acceptance, queued as it was');
  assert.equal(replay.headers.location, first.headers.location);

  const otherMonitor = await insertMonitorRow(t.db, {
    accountId: s.accountId,
    url: `${site.url}/other-${n}.html`,
    targets: [TITLE],
    nextCheckAt: new Date(t.clock.now().getTime() + 86_400_000),
  });
  const reused = await requestCheck(s.token, otherMonitor, 'replay-key-1');
  assert.equal(reused.statusCode, 409, 'the same key for another monitor is another request');
  assert.equal(reused.json().error.code, 'idempotency_key_reused');
});

test('a request not claimed within 30 minutes expires, and its daily slot stays spent', async () => {
  const s = await setup();
  const accepted = (await requestCheck(s.token, s.monitorId)).json().data;
  t.clock.advance(30 * MINUTE);
  const res = await receipt(s.token, accepted.check_id);
  assert.equal(res.json().data.status, 'expired');
  assert.equal(res.headers['retry-after'], undefined);
  assert.equal((await usage(s.token)).api.manual_checks.used, 1);
  assert.deepEqual((await engine.runCycle()).claimed, []);
  assert.equal(site.hits.get(s.path) ?? 0, 0);
  const fresh = await requestCheck(s.token, s.monitorId);
  assert.notEqual(fresh.json().data.check_id, accepted.check_id, 'an expired request is no longer pending');
});

test('pending requests are cancelled when the monitor is paused, deleted or its targets change, and when Pro is lost', async () => {
  const s = await setup();
  const accepted = (await requestCheck(s.token, s.monitorId)).json().data;
  await t.db.transaction(async (tx) => {
    await updateMonitorRow(tx, s.monitorId, { status: 'paused' });
    assert.equal(await cancelPendingChecks(tx, s.monitorId, t.clock.now(), 'paused'), 1);
  });
  const cancelled = (await receipt(s.token, accepted.check_id)).json().data;
  assert.equal(cancelled.status, 'cancelled');
  assert.deepEqual(
    cancelled.issues.map((i: { code: string; message: string }) => [i.code, i.message]),
    [['check_cancelled', 'cancelled: the monitor was paused']],
  );
  const paused = await requestCheck(s.token, s.monitorId);
  assert.equal(paused.statusCode, 409);
  assert.equal(paused.json().error.code, 'check_not_allowed');

  const p = await setup();
  const pending = (await requestCheck(p.token, p.monitorId)).json().data;
  await admin(t.app, 'PATCH', `/accounts/${p.accountId}`, { plan: 'free' });
  await engine.runCycle();
  await admin(t.app, 'PATCH', `/accounts/${p.accountId}`, { plan: 'pro' });
  assert.equal((await receipt(p.token, pending.check_id)).json().data.status, 'cancelled');
  assert.equal(site.hits.get(p.path) ?? 0, 0);
});

test("a deleted monitor's cancelled receipt stays readable", async () => {
  const s = await setup();
  const accepted = (await requestCheck(s.token, s.monitorId)).json().data;
  await t.db.transaction(async (tx) => {
    await cancelPendingChecks(tx, s.monitorId, t.clock.now(), 'deleted');
    await tx.query('DELETE FROM monitors WHERE id = $1', [s.monitorId]);
  });
  const res = await receipt(s.token, accepted.check_id);
  assert.deepEqual([res.statusCode, res.json().data.status], [200, 'cancelled']);
});

test("at most the plan's manual checks are accepted per UTC day: 429 check_limited with Retry-After to midnight", async () => {
  const account = await createAccountWithToken(t.app);
  const ids: string[] = [];
  for (let i = 0; i < 4; i++) {
    ids.push(
      await insertMonitorRow(t.db, {
        accountId: account.accountId,
        url: `${site.url}/limit-${n}-${i}.html`,
        targets: [TITLE],
        nextCheckAt: new Date(t.clock.now().getTime() + 86_400_000),
      }),
    );
  }
  for (const id of ids.slice(0, 3)) assert.equal((await requestCheck(account.token, id)).statusCode, 202);
  const limited = await requestCheck(account.token, ids[3]!);
  assert.equal(limited.statusCode, 429);
  assert.equal(limited.json().error.code, 'check_limited');
  const now = t.clock.now();
  const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
  assert.equal(limited.headers['retry-after'], String(Math.ceil((midnight - now.getTime()) / 1000)));
  t.clock.set(new Date(midnight));
  assert.equal((await requestCheck(account.token, ids[3]!)).statusCode, 202);
});

test('a page that cannot be loaded ends the check as failed with the load issue', async () => {
  const s = await setup();
  site.route(s.path, (_req, res) => {
    res.writeHead(500, { 'content-type': 'text/html' });
    res.end('broken');
  });
  const accepted = (await requestCheck(s.token, s.monitorId)).json().data;
  await engine.runCycle();
  const done = (await receipt(s.token, accepted.check_id)).json().data;
  assert.equal(done.status, 'failed');
  assert.deepEqual(
    done.issues.map((i: { code: string }) => i.code),
    ['http_status'],
  );
  assert.equal((await usage(s.token)).checks.html.used, 1, 'a failed check uses the allowance');
});

test('request errors: unknown monitor 404, missing key 400, unknown body field 400, foreign receipt 404, receipts gone after seven days', async () => {
  const s = await setup();
  const unknown = await requestCheck(s.token, '00000000-0000-4000-8000-000000000000');
  assert.equal(unknown.statusCode, 404);
  const noKey = await t.app.inject({
    method: 'POST',
    url: `/api/v1/monitors/${s.monitorId}/checks`,
    headers: { ...bearer(s.token), 'content-type': 'application/json' },
    payload: '{}',
  });
  assert.equal(noKey.json().error.code, 'idempotency_key_missing');
  const extra = await requestCheck(s.token, s.monitorId, 'extra-field-key', { force: true });
  assert.equal(extra.json().error.code, 'unknown_field');
  const accepted = (await requestCheck(s.token, s.monitorId)).json().data;
  const stranger = await createAccountWithToken(t.app);
  assert.equal((await receipt(stranger.token, accepted.check_id)).statusCode, 404);
  t.clock.advance(7 * 86_400_000);
  assert.equal((await receipt(s.token, accepted.check_id)).statusCode, 404);
});
