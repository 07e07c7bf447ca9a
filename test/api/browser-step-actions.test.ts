import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useMonitoringWorld, type MonitoringWorld } from '../helpers/monitoring-world.ts';
import { bearer, createAccountWithToken } from '../helpers/test-app.ts';
import { previewWithSteps, watchWithSteps } from '../helpers/step-monitors.ts';
import { routeStepSites } from '../helpers/step-sites.ts';

// The step actions browser-steps.test.ts does not need for its fixtures
// (issue #42): check and uncheck, scroll (to the bottom and to an element),
// goto a page of the same site, and evaluating targets on a stepped preview.
// Each reads through a stored monitor. Real Chromium, the real engine.

let w: MonitoringWorld;
useMonitoringWorld({}, (world) => {
  w = world;
  routeStepSites(w.site, { price: '€19.99', password: 'unused', portalPrice: '€1.00', otherOrigin: '', acceptId: 'accept' });
});

const PRICE = { id: 'price', kind: 'price', selection: { scope: 'selector', selector: '#price' }, currency: 'EUR', rule: 'changed' };
const text = (selector: string) => ({ id: 'text', kind: 'text', selection: { scope: 'selector', selector }, rule: 'changed' });

test('check and uncheck: ticking the terms and clearing the newsletter shows the price', async () => {
  const steps = [
    { action: 'check', selector: '#terms' },
    { action: 'uncheck', selector: '#newsletter' },
  ];
  const { monitor, preview } = await watchWithSteps(w, '/options', steps, PRICE);
  assert.deepEqual(
    preview.steps.map((s: { action: string; ok: boolean }) => [s.action, s.ok]),
    [
      ['check', true],
      ['uncheck', true],
    ],
  );
  assert.equal(monitor.observations[0].value, 1200);
});

test('scroll to the bottom: a list that grows at the end of the page is read grown', async () => {
  // Scroll events come a frame later, so the steps wait for the new item.
  const steps = [
    { action: 'scroll', to: 'bottom' },
    { action: 'wait_for', text: 'Two', timeout_ms: 3000 },
  ];
  const { monitor } = await watchWithSteps(w, '/lazy', steps, text('#items'));
  assert.equal(monitor.observations[0].value, 'One Two');
});

test('scroll to a selector: the element far down the page is brought into view', async () => {
  // The page learns it from an IntersectionObserver, a frame later, so the steps wait for it to say so.
  const steps = [
    { action: 'scroll', selector: '#late' },
    { action: 'wait_for', text: 'in view', timeout_ms: 3000 },
  ];
  const { monitor } = await watchWithSteps(w, '/lazy', steps, text('#late'));
  assert.deepEqual(monitor.last_issues, []);
  assert.equal(monitor.observations[0].value, 'in view');
});

test('goto a page of the same site: the later steps act there and the monitor reads it', async () => {
  const steps = [
    { action: 'goto', url: `${w.site.url}/cookie-wall` },
    { action: 'click', selector: '#accept' },
  ];
  const { monitor, preview } = await watchWithSteps(w, '/sizes', steps, PRICE);
  assert.deepEqual(
    preview.steps.map((s: { ok: boolean; url: string; title: string }) => [s.ok, s.url, s.title]),
    [
      [true, `${w.site.url}/cookie-wall`, 'Cookie wall'],
      [true, `${w.site.url}/cookie-wall`, 'Cookie wall'],
    ],
  );
  assert.equal(preview.final_url, `${w.site.url}/cookie-wall`);
  assert.equal(monitor.observations[0].value, 1999);
});

test('evaluate on a stepped preview reads the page after its steps; naming other steps is 422 preview_invalid', async () => {
  const { token } = await createAccountWithToken(w.t.app);
  const steps = [{ action: 'select', selector: '#size', value: 'l' }];
  const previewed = await previewWithSteps(w, token, '/sizes', steps);
  assert.equal(previewed.statusCode, 201, previewed.body);
  const evaluate = (body: object) =>
    w.t.app.inject({
      method: 'POST',
      url: `/api/v1/previews/${previewed.json().data.id}/evaluate`,
      headers: { ...bearer(token), 'content-type': 'application/json' },
      payload: { targets: [PRICE], ...body },
    });
  const same = await evaluate({ steps });
  assert.equal(same.statusCode, 200, same.body);
  assert.equal(same.json().data.targets[0].value, 2500);
  const other = await evaluate({ steps: [{ action: 'select', selector: '#size', value: 's' }] });
  assert.equal(other.statusCode, 422, other.body);
  assert.equal(other.json().error.code, 'preview_invalid');
});
