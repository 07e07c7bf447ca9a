import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { bearer, createAccountWithToken, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.ts';
import { createMonitorFor, loadPreview, patchMonitor, PRICE_TARGET } from '../helpers/monitor-api.ts';

// Pausing, reconfiguring or deleting a monitor cancels its queued manual
// checks (the specification's receipt table); the daily slot is not refunded.
let t: TestApp;
let site: FixtureServer;
let n = 0;
const page = () => `${site.url}/shop/espresso.html?c=${++n}`;
before(async () => {
  t = await startTestApp({ plans: { pro: { preview_spacing_seconds: 0 } } });
  site = await startFixtureServer();
});
after(async () => {
  await t.close();
  await site.close();
});

async function queuedCheck(token: string, monitorId: string): Promise<string> {
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/v1/monitors/${monitorId}/checks`,
    headers: { ...bearer(token), 'content-type': 'application/json', 'idempotency-key': `check-${Math.random().toString(36).slice(2)}` },
    payload: '{}',
  });
  assert.equal(res.statusCode, 202, res.body);
  assert.equal(res.json().data.status, 'queued');
  return res.json().data.check_id;
}

async function receiptStatus(token: string, checkId: string): Promise<string> {
  const res = await t.app.inject({ method: 'GET', url: `/api/v1/checks/${checkId}`, headers: bearer(token) });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().data.status;
}

const patch = (token: string, id: string, body: unknown) => patchMonitor(t.app, token, id, body);

test('pausing a monitor cancels its queued manual check and keeps the daily slot used', async () => {
  const { token } = await createAccountWithToken(t.app);
  const id = await createMonitorFor(t.app, token, page());
  const checkId = await queuedCheck(token, id);
  assert.equal((await patch(token, id, { status: 'paused' })).statusCode, 200);
  assert.equal(await receiptStatus(token, checkId), 'cancelled');
  const usage = await t.app.inject({ method: 'GET', url: '/api/v1/usage', headers: bearer(token) });
  assert.equal(usage.json().data.api.manual_checks.used, 1);
});

test('changing the targets cancels the queued manual check', async () => {
  const { token } = await createAccountWithToken(t.app);
  const url = page();
  const id = await createMonitorFor(t.app, token, url);
  const checkId = await queuedCheck(token, id);
  const previewId = await loadPreview(t.app, token, url);
  assert.equal((await patch(token, id, { preview_id: previewId, targets: [PRICE_TARGET], expected_version: 1 })).statusCode, 200);
  assert.equal(await receiptStatus(token, checkId), 'cancelled');
});

test('a metadata change leaves the queued manual check alone', async () => {
  const { token } = await createAccountWithToken(t.app);
  const id = await createMonitorFor(t.app, token, page());
  const checkId = await queuedCheck(token, id);
  assert.equal((await patch(token, id, { name: 'renamed' })).statusCode, 200);
  assert.equal(await receiptStatus(token, checkId), 'queued');
});

test('deleting a monitor cancels its queued manual check; the receipt stays readable', async () => {
  const { token } = await createAccountWithToken(t.app);
  const id = await createMonitorFor(t.app, token, page());
  const checkId = await queuedCheck(token, id);
  const del = await t.app.inject({ method: 'DELETE', url: `/api/v1/monitors/${id}`, headers: bearer(token) });
  assert.equal(del.statusCode, 204);
  assert.equal(await receiptStatus(token, checkId), 'cancelled');
});
