// test-lane: waits (Chromium's loads, one per step run)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useMonitoringWorld, type MonitoringWorld } from '../helpers/monitoring-world.ts';
import { bearer, createAccountWithToken } from '../helpers/test-app.ts';
import { patchMonitor, postMonitor } from '../helpers/monitor-api.ts';
import { previewWithSteps, watchWithSteps } from '../helpers/step-monitors.ts';
import { routeStepSites, type StepSiteState } from '../helpers/step-sites.ts';

// Steps before the capture in browser mode (issue #42): each fixture page
// shows what is watched only after an action, and a stored monitor with the
// steps reads the right value. Real Chromium, the real engine, both stores.

let w: MonitoringWorld;
const state: StepSiteState = {
  price: '€19.99',
  password: 'unused',
  portalPrice: '€1.00',
  otherOrigin: '',
  acceptId: 'accept',
};
useMonitoringWorld({}, (world) => {
  w = world;
  state.otherOrigin = `http://127.0.0.2:${w.site.port}`;
  routeStepSites(w.site, state);
});

const PRICE = { id: 'price', kind: 'price', selection: { scope: 'selector', selector: '#price' }, currency: 'EUR', rule: 'changed' };

const preview = (token: string, url: string, steps: unknown[], loadMode = 'browser') => previewWithSteps(w, token, url, steps, loadMode);
const watch = (url: string, steps: unknown[], target: object, extra: object = {}) => watchWithSteps(w, url, steps, target, extra);

test('a cookie wall: clicking Accept shows the price, which the stored monitor reads', async () => {
  const { monitor, preview: answer } = await watch('/cookie-wall', [{ action: 'click', selector: '#accept' }], PRICE);
  assert.deepEqual(
    answer.steps.map((s: { action: string; ok: boolean; issue: unknown; title: string }) => [s.action, s.ok, s.issue, s.title]),
    [['click', true, null, 'Cookie wall']],
  );
  assert.ok(
    answer.elements.some((e: { selector: string; text: string }) => e.selector === '#price' && e.text === '€19.99'),
    'the element list is that of the page after the last step',
  );
  assert.equal(monitor.observations[0].value, 1999);
  assert.deepEqual(monitor.steps, [{ action: 'click', selector: '#accept' }]);
});

test('a preview after steps answers the element list and the step results only: no screenshot, cookie or page HTML', async () => {
  const { token } = await createAccountWithToken(w.t.app);
  const res = await preview(token, '/consent', [{ action: 'click', selector: '#accept' }]);
  assert.equal(res.statusCode, 201, res.body);
  const data = res.json().data;
  assert.deepEqual(Object.keys(data).sort(), [
    'created_at',
    'elements',
    'expires_at',
    'final_url',
    'format',
    'id',
    'issues',
    'load_mode',
    'steps',
    'title',
    'url',
  ]);
  assert.ok(data.elements.some((e: { selector: string; text: string }) => e.selector === '#price' && e.text === state.price));
  // The click set a cookie in the page and the page holds a script: neither comes back, nor any image.
  assert.ok(!/<html|<script|consent=yes|data:image|screenshot/i.test(res.body), res.body);
  assert.equal(res.headers['set-cookie'], undefined);
});

test('a size selector: selecting Large reads the large price', async () => {
  const { monitor } = await watch('/sizes', [{ action: 'select', selector: '#size', value: 'l' }], PRICE);
  assert.equal(monitor.observations[0].value, 2500);
});

test('a load-more list: after the click the list holds the items loaded from the server', async () => {
  const list = { id: 'list', kind: 'text', selection: { scope: 'selector', selector: '#items' }, rule: 'changed' };
  const { monitor } = await watch(
    '/list',
    [
      { action: 'click', selector: '#more' },
      { action: 'wait_for', text: 'Four', timeout_ms: 3000 },
    ],
    list,
  );
  assert.equal(monitor.observations[0].value, 'One Two Three Four');
});

test('a postcode form: typing the postcode and pressing Enter shows the stock for it', async () => {
  const stock = { id: 'stock', kind: 'availability', selection: { scope: 'selector', selector: '#stock' }, rule: 'changed' };
  const steps = [
    { action: 'type', selector: '#postcode', text: '10115' },
    { action: 'press', selector: '#postcode', key: 'Enter' },
  ];
  const { monitor } = await watch('/postcode', steps, stock);
  assert.equal(monitor.observations[0].value, 'in_stock');
});

test('a click that navigates to another host is refused: the preview names the step and the monitor cannot be made from it', async () => {
  const { token } = await createAccountWithToken(w.t.app);
  const steps = [{ action: 'click', selector: '#away' }];
  const res = await preview(token, '/off-site', steps);
  assert.equal(res.statusCode, 201, res.body);
  const answer = res.json().data;
  assert.equal(answer.steps[0].issue.code, 'navigation_refused');
  assert.equal(answer.steps[0].url, `${w.site.url}/off-site`, 'the page stayed where it was');
  assert.deepEqual(
    answer.issues.map((i: { code: string }) => i.code),
    ['step_failed'],
  );
  assert.match(answer.issues[0].message, /step 1 \(click\)/);
  const created = await postMonitor(w.t.app, token, { preview_id: answer.id, targets: [TITLE], steps, interval_minutes: 15 });
  assert.equal(created.statusCode, 422);
  assert.equal(created.json().error.code, 'preview_invalid');
});

const TITLE = { id: 'title', kind: 'text', selection: { scope: 'selector', selector: '#product-title' }, rule: 'changed' };

test('popups, dialogs and new windows a step opens are dismissed and the page stays', async () => {
  const after = { id: 'after', kind: 'text', selection: { scope: 'selector', selector: '#after' }, rule: 'changed' };
  const { monitor, preview: answer } = await watch('/interruptions', [{ action: 'click', selector: '#go' }], after);
  assert.equal(answer.steps[0].ok, true);
  assert.equal(answer.steps[0].url, `${w.site.url}/interruptions`);
  assert.equal(monitor.observations[0].value, 'dismissed');
});

test('a step that fails on a stored monitor is the check issue step_failed naming the step, a failed check and no change', async () => {
  state.acceptId = 'accept';
  const steps = [
    { action: 'wait', ms: 10 },
    { action: 'click', selector: '#accept' },
  ];
  const { token, monitorId, monitor, check } = await watch('/cookie-wall', steps, PRICE, { notifications: { failing_after: 1 } });
  assert.equal(monitor.observations[0].value, 1999);
  try {
    state.acceptId = 'agree';
    state.price = '€5.00';
    const failed = await check();
    assert.deepEqual(
      failed.last_issues.map((i: { code: string; message: string }) => [i.code, i.message.split(':')[0]]),
      [['step_failed', 'step 2 (click) failed']],
    );
    assert.match(failed.last_issues[0].message, /no element matches #accept/);
    assert.equal(failed.observations[0].value, 1999, 'the page after a failed step is not read');
    assert.ok(failed.failing_since, 'a failed check');
    const changes = await w.t.app.inject({ method: 'GET', url: `/api/v1/changes?monitor_id=${monitorId}`, headers: bearer(token) });
    assert.deepEqual(changes.json().data, []);
    const [alert] = await w.t.db.query<{ event_data: { issues: { code: string; message: string }[] } }>(
      "SELECT event_data FROM notification_outbox WHERE monitor_id = $1 AND event = 'monitor.failing' AND channel = 'email'",
      [monitorId],
    );
    assert.deepEqual(
      alert?.event_data.issues.map((i) => i.code),
      ['step_failed'],
      'monitor.failing names the step',
    );
    assert.match(alert.event_data.issues[0]?.message ?? '', /step 2 \(click\)/);
  } finally {
    state.acceptId = 'accept';
    state.price = '€19.99';
  }
});

test('steps are refused in html mode, past the plan, with a costly selector or a goto off the site: 422 naming the field', async () => {
  const { token } = await createAccountWithToken(w.t.app);
  const cases: [string, unknown[], string][] = [
    ['html', [{ action: 'click', selector: '#accept' }], 'steps'],
    ['browser', Array.from({ length: 21 }, () => ({ action: 'wait', ms: 1 })), 'steps'],
    ['browser', [{ action: 'click', selector: 'a b c d e' }], 'steps[0].selector'],
    ['browser', [{ action: 'goto', url: 'http://127.0.0.2/elsewhere' }], 'steps[0].url'],
    ['browser', [{ action: 'click' }], 'steps[0].selector'],
    ['browser', [{ action: 'wait', ms: 10, selector: '#x' }], 'steps[0].selector'],
    ['browser', Array.from({ length: 3 }, () => ({ action: 'wait_for', text: 'x', timeout_ms: 15000 })), 'steps'],
  ];
  for (const [mode, steps, field] of cases) {
    const res = await preview(token, '/cookie-wall', steps, mode);
    assert.equal(res.statusCode, 422, `${field}: ${res.body}`);
    assert.ok(
      res.json().error.details.some((d: { field: string }) => d.field === field),
      `${field}: ${JSON.stringify(res.json().error.details)}`,
    );
  }
});

test('a monitor is made only with the steps its preview ran; changing steps needs a fresh preview and expected_version', async () => {
  const steps = [{ action: 'click', selector: '#accept' }];
  const { token, monitorId } = await watch('/cookie-wall', steps, PRICE);
  const other = await createAccountWithToken(w.t.app);
  const plain = await preview(other.token, '/cookie-wall', []);
  const mismatched = await postMonitor(w.t.app, other.token, {
    preview_id: plain.json().data.id,
    targets: [TITLE],
    steps,
    interval_minutes: 15,
  });
  assert.equal(mismatched.statusCode, 422);
  assert.equal(mismatched.json().error.code, 'preview_invalid');

  const noVersion = await patchMonitor(w.t.app, token, monitorId, { steps: [] });
  assert.equal(noVersion.statusCode, 422);
  w.t.clock.advance(60_000);
  const fresh = await preview(token, '/cookie-wall', [
    { action: 'click', selector: '#accept' },
    { action: 'wait', ms: 5 },
  ]);
  const changed = await patchMonitor(w.t.app, token, monitorId, {
    preview_id: fresh.json().data.id,
    steps: [
      { action: 'click', selector: '#accept' },
      { action: 'wait', ms: 5 },
    ],
    expected_version: 1,
  });
  assert.equal(changed.statusCode, 200, changed.body);
  assert.equal(changed.json().data.config_version, 2);
  assert.equal(changed.json().data.steps.length, 2);
});
