import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { bearer, createAccountWithToken, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.ts';
import { createMonitorFor, loadPreview, patchMonitor, postMonitor, PRICE_TARGET, TITLE_TARGET } from '../helpers/monitor-api.ts';

// Previews may follow each other without spacing here (an operator's plans
// file); the spacing rule itself is tested with the previews.
let t: TestApp;
let site: FixtureServer;
let n = 0;
const page = () => `${site.url}/shop/espresso.html?m=${++n}`;
before(async () => {
  t = await startTestApp({ plans: { pro: { preview_spacing_seconds: 0, previews_per_day: 1000, previews_per_month: 1000, monitors: 3 } } });
  site = await startFixtureServer();
});
after(async () => {
  await t.close();
  await site.close();
});

const get = (token: string, id: string) => t.app.inject({ method: 'GET', url: `/api/v1/monitors/${id}`, headers: bearer(token) });
const patch = (token: string, id: string, body: unknown) => patchMonitor(t.app, token, id, body);
const del = (token: string, id: string) => t.app.inject({ method: 'DELETE', url: `/api/v1/monitors/${id}`, headers: bearer(token) });

test("creating a monitor returns 201 with its id and a Location; the URL and load mode are the preview's", async () => {
  const { token } = await createAccountWithToken(t.app);
  const url = page();
  const previewId = await loadPreview(t.app, token, url);
  const res = await postMonitor(t.app, token, {
    preview_id: previewId,
    targets: [TITLE_TARGET, PRICE_TARGET],
    interval_minutes: 5,
    name: 'Espresso',
    labels: ['coffee'],
  });
  assert.equal(res.statusCode, 201, res.body);
  const id = res.json().data.id;
  assert.deepEqual(Object.keys(res.json().data), ['id']);
  assert.equal(res.headers.location, `/api/v1/monitors/${id}`);
  const monitor = (await get(token, id)).json().data;
  assert.equal(monitor.url, url);
  assert.equal(monitor.load_mode, 'html');
  assert.equal(monitor.status, 'active');
  assert.equal(monitor.config_version, 1);
  assert.equal(monitor.name, 'Espresso');
  assert.deepEqual(monitor.labels, ['coffee']);
  assert.deepEqual(monitor.notifications, {
    email_enabled: true,
    email_mode: null,
    webhook_enabled: false,
    channels: [],
    failing_after: 3,
  });
  assert.equal(monitor.failing_since, null);
  assert.deepEqual(
    monitor.targets.map((x: { id: string }) => x.id),
    ['title', 'price'],
  );
  assert.equal(monitor.last_checked_at, null);
  assert.ok(monitor.next_check_at);
  assert.deepEqual(monitor.last_issues, []);
});

test('a monitor created with status paused is paused from the request that creates it: no check is due until it is resumed', async () => {
  const { token } = await createAccountWithToken(t.app);
  const previewId = await loadPreview(t.app, token, page());
  const res = await postMonitor(t.app, token, { preview_id: previewId, targets: [TITLE_TARGET], interval_minutes: 5, status: 'paused' });
  assert.equal(res.statusCode, 201, res.body);
  const id = res.json().data.id;
  assert.equal((await get(token, id)).json().data.status, 'paused');
  const due = () => t.db.query<{ active: boolean }>('SELECT active FROM check_state WHERE monitor_id = $1', [id]);
  assert.deepEqual(await due(), [{ active: false }]);
  assert.equal((await patch(token, id, { status: 'active' })).json().data.status, 'active');
  assert.deepEqual(await due(), [{ active: true }]);
});

test('a preview that is unknown, expired or of another account is 422 preview_invalid', async () => {
  const { token } = await createAccountWithToken(t.app);
  const other = await createAccountWithToken(t.app);
  const foreign = await loadPreview(t.app, other.token, page());
  const expiring = await loadPreview(t.app, token, page());
  t.clock.advance(15 * 60_000);
  for (const previewId of ['00000000-0000-4000-8000-000000000000', foreign, expiring]) {
    const res = await postMonitor(t.app, token, { preview_id: previewId, targets: [TITLE_TARGET], interval_minutes: 5 });
    assert.equal(res.statusCode, 422, previewId);
    assert.equal(res.json().error.code, 'preview_invalid');
  }
});

test('creation repeats target validation against the capture: 422 target_invalid per target', async () => {
  const { token } = await createAccountWithToken(t.app);
  const previewId = await loadPreview(t.app, token, page());
  const res = await postMonitor(t.app, token, {
    preview_id: previewId,
    targets: [TITLE_TARGET, { id: 'gone', kind: 'text', selection: { scope: 'selector', selector: '#does-not-exist' } }],
    interval_minutes: 5,
  });
  assert.equal(res.statusCode, 422);
  assert.equal(res.json().error.code, 'target_invalid');
  assert.equal(res.json().error.details[0].field, 'targets[1]');
  assert.match(res.json().error.details[0].message, /selector_missing/);
});

test('target ids must be unique and at most three targets are allowed', async () => {
  const { token } = await createAccountWithToken(t.app);
  const previewId = await loadPreview(t.app, token, page());
  const dup = await postMonitor(t.app, token, { preview_id: previewId, targets: [TITLE_TARGET, TITLE_TARGET], interval_minutes: 5 });
  assert.equal(dup.statusCode, 422);
  const four = await postMonitor(t.app, token, {
    preview_id: previewId,
    targets: [1, 2, 3, 4].map((i) => ({ ...TITLE_TARGET, id: `t${i}` })),
    interval_minutes: 5,
  });
  assert.equal(four.statusCode, 422);
});

test('the minimum interval is 5 minutes for html monitors', async () => {
  const { token } = await createAccountWithToken(t.app);
  const previewId = await loadPreview(t.app, token, page());
  const res = await postMonitor(t.app, token, { preview_id: previewId, targets: [TITLE_TARGET], interval_minutes: 4 });
  assert.equal(res.statusCode, 422);
  assert.equal(res.json().error.details[0].field, 'interval_minutes');
});

test('the minimum interval is 15 minutes for browser monitors', async () => {
  const { token } = await createAccountWithToken(t.app);
  const previewId = await loadPreview(t.app, token, page(), 'browser');
  const low = await postMonitor(t.app, token, { preview_id: previewId, targets: [TITLE_TARGET], interval_minutes: 14 });
  assert.equal(low.statusCode, 422);
  const ok = await postMonitor(t.app, token, { preview_id: previewId, targets: [TITLE_TARGET], interval_minutes: 15 });
  assert.equal(ok.statusCode, 201, ok.body);
});

test('one monitor per URL per account: a second is 409 monitor_exists', async () => {
  const { token } = await createAccountWithToken(t.app);
  const url = page();
  await createMonitorFor(t.app, token, url);
  const previewId = await loadPreview(t.app, token, url);
  const res = await postMonitor(t.app, token, { preview_id: previewId, targets: [TITLE_TARGET], interval_minutes: 10 });
  assert.equal(res.statusCode, 409);
  assert.equal(res.json().error.code, 'monitor_exists');
});

test("the plan's monitor slots are exact: beyond them 409 allowance_exhausted; deleting frees a slot", async () => {
  const { token } = await createAccountWithToken(t.app);
  const ids = [];
  for (let i = 0; i < 3; i++) ids.push(await createMonitorFor(t.app, token, page()));
  const previewId = await loadPreview(t.app, token, page());
  const body = { preview_id: previewId, targets: [TITLE_TARGET], interval_minutes: 5 };
  const full = await postMonitor(t.app, token, body);
  assert.equal(full.statusCode, 409);
  assert.equal(full.json().error.code, 'allowance_exhausted');
  assert.equal((await del(token, ids[0]!)).statusCode, 204);
  assert.equal((await postMonitor(t.app, token, body)).statusCode, 201);
});

test("another account's monitor, a deleted one and a malformed id are 404", async () => {
  const { token } = await createAccountWithToken(t.app);
  const stranger = await createAccountWithToken(t.app);
  const id = await createMonitorFor(t.app, token, page());
  assert.equal((await get(stranger.token, id)).statusCode, 404);
  assert.equal((await patch(stranger.token, id, { name: 'x' })).statusCode, 404);
  assert.equal((await del(stranger.token, id)).statusCode, 404);
  assert.equal((await get(token, 'not-a-uuid')).statusCode, 404);
  assert.equal((await del(token, id)).statusCode, 204);
  assert.equal((await get(token, id)).statusCode, 404);
  assert.equal((await del(token, id)).statusCode, 404);
});

test('name, labels, status and notification flags change directly without touching config_version', async () => {
  const { token } = await createAccountWithToken(t.app);
  const id = await createMonitorFor(t.app, token, page());
  const res = await patch(token, id, { name: 'Renamed', labels: ['a', 'b'], status: 'paused', notifications: { webhook_enabled: true } });
  assert.equal(res.statusCode, 200, res.body);
  const m = res.json().data;
  assert.equal(m.name, 'Renamed');
  assert.deepEqual(m.labels, ['a', 'b']);
  assert.equal(m.status, 'paused');
  assert.deepEqual(m.notifications, { email_enabled: true, email_mode: null, webhook_enabled: true, channels: [], failing_after: 3 });
  assert.equal(m.config_version, 1);
  const resumed = await patch(token, id, { status: 'active' });
  assert.equal(resumed.json().data.status, 'active');
});

test('PATCH with name null removes the name', async () => {
  const { token } = await createAccountWithToken(t.app);
  const id = await createMonitorFor(t.app, token, page());
  assert.equal((await patch(token, id, { name: 'Espresso' })).json().data.name, 'Espresso');
  const cleared = await patch(token, id, { name: null });
  assert.equal(cleared.statusCode, 200);
  assert.equal(cleared.json().data.name, null);
  assert.equal((await get(token, id)).json().data.name, null);
});

test('changing targets needs a fresh preview and the current expected_version, and bumps config_version', async () => {
  const { token } = await createAccountWithToken(t.app);
  const url = page();
  const id = await createMonitorFor(t.app, token, url);
  const previewId = await loadPreview(t.app, token, url);
  const res = await patch(token, id, { preview_id: previewId, targets: [PRICE_TARGET], interval_minutes: 30, expected_version: 1 });
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(res.json().data.config_version, 2);
  assert.equal(res.json().data.interval_minutes, 30);
  assert.deepEqual(
    res.json().data.targets.map((x: { id: string }) => x.id),
    ['price'],
  );
});

test('a stale expected_version is 409 version_conflict', async () => {
  const { token } = await createAccountWithToken(t.app);
  const url = page();
  const id = await createMonitorFor(t.app, token, url);
  const previewId = await loadPreview(t.app, token, url);
  await patch(token, id, { preview_id: previewId, interval_minutes: 20, expected_version: 1 });
  const stale = await patch(token, id, { preview_id: previewId, interval_minutes: 25, expected_version: 1 });
  assert.equal(stale.statusCode, 409);
  assert.equal(stale.json().error.code, 'version_conflict');
});

test('changing targets without expected_version or without a preview is 422', async () => {
  const { token } = await createAccountWithToken(t.app);
  const url = page();
  const id = await createMonitorFor(t.app, token, url);
  const previewId = await loadPreview(t.app, token, url);
  const noVersion = await patch(token, id, { preview_id: previewId, targets: [PRICE_TARGET] });
  assert.equal(noVersion.statusCode, 422);
  assert.equal(noVersion.json().error.details[0].field, 'expected_version');
  const noPreview = await patch(token, id, { targets: [PRICE_TARGET], expected_version: 1 });
  assert.equal(noPreview.statusCode, 422);
  assert.equal(noPreview.json().error.details[0].field, 'preview_id');
});

test('the URL cannot change: a preview of another URL is 422 preview_invalid', async () => {
  const { token } = await createAccountWithToken(t.app);
  const id = await createMonitorFor(t.app, token, page());
  const otherPreview = await loadPreview(t.app, token, page());
  const res = await patch(token, id, { preview_id: otherPreview, expected_version: 1 });
  assert.equal(res.statusCode, 422);
  assert.equal(res.json().error.code, 'preview_invalid');
});

test('unknown fields are rejected on create and update', async () => {
  const { token } = await createAccountWithToken(t.app);
  const id = await createMonitorFor(t.app, token, page());
  const res = await patch(token, id, { url: 'https://example.com/other' });
  assert.equal(res.statusCode, 400);
  assert.equal(res.json().error.code, 'unknown_field');
  const previewId = await loadPreview(t.app, token, page());
  const create = await postMonitor(t.app, token, { preview_id: previewId, targets: [TITLE_TARGET], interval_minutes: 5, url: 'x' });
  assert.equal(create.json().error.code, 'unknown_field');
});
