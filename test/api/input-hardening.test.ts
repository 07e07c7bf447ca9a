import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SteppedEngine } from '../../src/engine/scheduler.ts';
import { admin, bearer, createAccountWithToken, type TestApp } from '../helpers/test-app.ts';
import type { FixtureServer } from '../helpers/fixture-server.ts';
import { useMonitoringWorld } from '../helpers/monitoring-world.ts';
import { createMonitorFor, loadPreview, postMonitor, TITLE_TARGET } from '../helpers/monitor-api.ts';
import { TITLE, watchPage } from '../helpers/watched-page.ts';

// Input the store cannot hold is refused as a 4xx, never a 500; text from a
// page that the store cannot hold is made storable.

let t: TestApp, site: FixtureServer, engine: SteppedEngine;
useMonitoringWorld({ plans: { pro: { preview_spacing_seconds: 0, requests_per_minute: 10_000 } } }, (w) => ({ t, site, engine } = w));

const json = (token: string) => ({ ...bearer(token), 'content-type': 'application/json' });

test('a page holding a NUL character previews and checks like any other', async () => {
  site.route('/nul.html', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<html><head><title>nul\u0000page</title></head><body><h1 id="title">Espresso\u0000Duo</h1></body></html>');
  });
  const { token, accountId } = await createAccountWithToken(t.app);
  const preview = await t.app.inject({
    method: 'POST',
    url: '/api/v1/previews',
    headers: json(token),
    payload: { url: `${site.url}/nul.html`, load_mode: 'html' },
  });
  assert.equal(preview.statusCode, 201, preview.body);
  assert.equal(preview.json().data.title, 'nul\uFFFDpage');

  const page = await watchPage(t, site, engine, { accountId, targets: [TITLE] });
  site.route(page.path, (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<html><body><h1 id="title">Espresso\u0000Duo</h1></body></html>');
  });
  await page.check();
  const [row] = await t.db.query<{ last_issues: unknown[] }>('SELECT last_issues FROM check_state WHERE monitor_id = $1', [page.monitorId]);
  assert.deepEqual(row?.last_issues, [], 'the check was recorded without issues');
  const [baseline] = await t.db.query<{ value: string }>('SELECT value FROM baselines WHERE monitor_id = $1', [page.monitorId]);
  assert.equal(baseline?.value, 'Espresso\uFFFDDuo');
});

test('NUL in any stored text field is refused: 422 in bodies, 400 in queries, 404 in paths', async () => {
  const { token, accountId } = await createAccountWithToken(t.app);
  const url = `${site.url}/shop/espresso.html?nul=1`;
  const previewId = await loadPreview(t.app, token, url);
  const body = { preview_id: previewId, targets: [TITLE_TARGET], interval_minutes: 60 };
  for (const [field, changed] of [
    ['name', { ...body, name: 'a\u0000b' }],
    ['labels[0]', { ...body, labels: ['x\u0000'] }],
    ['targets[0].label', { ...body, targets: [{ ...TITLE_TARGET, label: '\u0000' }] }],
    ['targets[0].phrase', { ...body, targets: [{ ...TITLE_TARGET, rule: 'appears', phrase: 'p\u0000' }] }],
  ] as const) {
    const res = await postMonitor(t.app, token, changed);
    assert.equal(res.statusCode, 422, field);
    assert.deepEqual(res.json().error.details, [{ field, message: 'must not contain the NUL character (U+0000)' }]);
  }
  const tokenName = await admin(t.app, 'POST', `/accounts/${accountId}/tokens`, {
    name: 'n\u0000',
    scopes: ['usage:read'],
    expires_in_days: 1,
  });
  assert.equal(tokenName.statusCode, 422);
  const query = await t.app.inject({ method: 'GET', url: '/api/v1/changes?target_id=%00', headers: bearer(token) });
  assert.equal(query.statusCode, 400);
  assert.equal(query.json().error.code, 'invalid_request');
  const path = await t.app.inject({ method: 'GET', url: '/api/v1/changes/%00', headers: bearer(token) });
  assert.equal(path.statusCode, 404);
});

test('ids written as urn:uuid are 404 on every id path, the operator API included', async () => {
  const { token, accountId } = await createAccountWithToken(t.app);
  const id = await createMonitorFor(t.app, token, `${site.url}/shop/espresso.html?urn=1`);
  for (const path of [
    `/api/v1/monitors/urn:uuid:${id}`,
    `/api/v1/changes/urn:uuid:${id}`,
    `/api/v1/checks/urn:uuid:${id}`,
    `/api/v1/monitors/urn:uuid:${id}/checks`,
  ]) {
    const res = await t.app.inject({ method: 'GET', url: path, headers: bearer(token) });
    assert.equal(res.statusCode, 404, path);
  }
  assert.equal((await admin(t.app, 'GET', `/accounts/urn:uuid:${accountId}`)).statusCode, 404);
  assert.equal((await admin(t.app, 'DELETE', `/tokens/urn:uuid:${accountId}`)).statusCode, 404);
});

test('date-times the store cannot hold are 400 invalid_request', async () => {
  const { token } = await createAccountWithToken(t.app);
  for (const query of [
    'since=2016-12-31T23:59:60Z',
    'since=0000-01-01T00:00:00Z',
    'until=9999-12-31T23:59:59-23:59',
    'since=2026-02-30T00:00:00Z',
  ]) {
    const res = await t.app.inject({ method: 'GET', url: `/api/v1/changes?${query}`, headers: bearer(token) });
    assert.equal(res.statusCode, 400, query);
    assert.equal(res.json().error.code, 'invalid_request', query);
  }
  const fine = await t.app.inject({
    method: 'GET',
    url: '/api/v1/changes?since=2026-01-01T00:00:00%2B02:00&until=9999-12-31T23:59:59Z',
    headers: bearer(token),
  });
  assert.equal(fine.statusCode, 200, fine.body);
});
