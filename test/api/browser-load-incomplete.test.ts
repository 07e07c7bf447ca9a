// test-lane: waits (each load lets a settle cap or a load deadline pass)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useMonitoringWorld, type MonitoringWorld } from '../helpers/monitoring-world.ts';
import { bearer, createAccountWithToken } from '../helpers/test-app.ts';
import { loadPreview, postMonitor, TITLE_TARGET } from '../helpers/monitor-api.ts';
import { checkDueMonitor } from '../helpers/test-engine.ts';
import { createBrowserLoader } from '../../src/fetch/loader/browser-loader.ts';

// A page whose load event never comes (a script host that never answers, as
// trackers behind a blocker do) is read as it stands at the settle cap, with
// the issue load_incomplete; only a document that never arrives is a timeout.
// Real Chromium against a loopback fixture server.
const STALLED_PAGE =
  '<html><head><title>Stalled</title></head><body><h1 id="product-title">Blue kettle</h1>' +
  '<script async src="/never-answers.js"></script></body></html>';

// A settle cap well short of the 5 s default: every load of the stalled page waits it out in full, and the
// tiny document has long arrived by then.
const SETTLE_CAP_MS = 2_500;

let w: MonitoringWorld;
useMonitoringWorld({ loaders: { browserSettleMs: SETTLE_CAP_MS } }, (world) => {
  w = world;
  w.site.route('/stalled', (_req, res) => void res.writeHead(200, { 'content-type': 'text/html' }).end(STALLED_PAGE));
  w.site.route('/never-answers.js', () => undefined);
  w.site.route('/no-document', () => undefined);
  w.site.route('/plain', (_req, res) => void res.writeHead(200, { 'content-type': 'text/html' }).end('<title>Plain</title>'));
});

// Chromium's start counts against a load's deadline and takes seconds on a busy machine: the timeout test's loader
// is started by a load before, and its deadline leaves room for that start.
const NO_DOCUMENT_TIMEOUT_MS = 10_000;

test('a page whose load event never comes previews with its text and the load_incomplete issue', async () => {
  const { token } = await createAccountWithToken(w.t.app);
  const res = await w.t.app.inject({
    method: 'POST',
    url: '/api/v1/previews',
    headers: { ...bearer(token), 'content-type': 'application/json' },
    payload: { url: `${w.site.url}/stalled`, load_mode: 'browser' },
  });
  assert.equal(res.statusCode, 201, res.body);
  const preview = res.json().data;
  assert.ok(
    preview.elements.some((e: { text: string }) => e.text === 'Blue kettle'),
    JSON.stringify(preview.elements),
  );
  assert.deepEqual(
    preview.issues.map((i: { code: string; target_id: string | null }) => [i.code, i.target_id]),
    [['load_incomplete', null]],
  );
});

test('a check of a page whose load event never comes records the value, not a failure', async () => {
  const { token: own } = await createAccountWithToken(w.t.app);
  const previewId = await loadPreview(w.t.app, own, `${w.site.url}/stalled`, 'browser');
  const created = await postMonitor(w.t.app, own, { preview_id: previewId, targets: [TITLE_TARGET], interval_minutes: 15 });
  assert.equal(created.statusCode, 201, created.body);
  const monitorId = created.json().data.id as string;
  await checkDueMonitor(w.t, w.engine, monitorId);

  const runs = await w.t.app.inject({ method: 'GET', url: `/api/v1/monitors/${monitorId}/checks`, headers: bearer(own) });
  assert.deepEqual(
    runs.json().data.map((r: { outcome: string; issues: { code: string }[] }) => [r.outcome, r.issues.map((i) => i.code)]),
    [['issues', ['load_incomplete']]],
  );
  const monitor = await w.t.app.inject({ method: 'GET', url: `/api/v1/monitors/${monitorId}`, headers: bearer(own) });
  assert.equal(monitor.json().data.observations[0].value, 'Blue kettle');
  assert.equal(monitor.json().data.failing_since, null);
});

test('a page whose document never arrives by the deadline is still a timeout', async () => {
  const loader = createBrowserLoader({ policy: w.t.loaders.policy, timeoutMs: NO_DOCUMENT_TIMEOUT_MS });
  try {
    await loader.load({ url: `${w.site.url}/plain`, mode: 'browser' });
    const result = await loader.load({ url: `${w.site.url}/no-document`, mode: 'browser' });
    assert.deepEqual(
      result.issues.map((i) => i.code),
      ['timeout'],
    );
    assert.equal(result.html, null);
  } finally {
    await loader.close();
  }
});
