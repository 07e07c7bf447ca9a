import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { useMonitoringWorld, type MonitoringWorld } from '../helpers/monitoring-world.ts';
import { createAccountWithToken } from '../helpers/test-app.ts';
import { postMonitor } from '../helpers/monitor-api.ts';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.ts';
import { previewWithSteps, watchWithSteps } from '../helpers/step-monitors.ts';
import { routeStepSites, type StepSiteState } from '../helpers/step-sites.ts';

// What browser steps may not do (issue #42 item 5): keep anything between
// checks, reach an address the SSRF guard refuses, leave the monitor's site
// by a redirect, or be stopped by a download, a file chooser or a permission
// prompt. The operator here trusts 127.0.0.1 (the site) and 127.0.0.3 (another
// site); 127.0.0.2 is refused like any private address. Real Chromium.

let w: MonitoringWorld;
let refusedHost: FixtureServer, otherSite: FixtureServer;
const state: StepSiteState = { price: '€19.99', password: 'unused', portalPrice: '€1.00', otherOrigin: '', acceptId: 'accept' };
useMonitoringWorld({ env: { PAGEWATCH_ALLOW_PRIVATE_NETWORKS: '127.0.0.1/32,127.0.0.3/32' } }, (world) => {
  w = world;
  routeStepSites(w.site, state);
});
before(async () => {
  refusedHost = await startFixtureServer({}, { host: '127.0.0.2' });
  otherSite = await startFixtureServer(
    {
      '/elsewhere': (_req, res) =>
        void res.writeHead(200, { 'content-type': 'text/html' }).end('<title>Other</title><p id="other">Other site</p>'),
    },
    { host: '127.0.0.3' },
  );
});
after(async () => {
  await refusedHost.close();
  await otherSite.close();
});

const text = (selector: string) => ({ id: 'text', kind: 'text', selection: { scope: 'selector', selector }, rule: 'changed' });
const PRICE = { id: 'price', kind: 'price', selection: { scope: 'selector', selector: '#price' }, currency: 'EUR', rule: 'changed' };

test('every load starts from a fresh browser context: a cookie a step set is not sent by the next check', async () => {
  state.cookiesSeen = [];
  try {
    const { monitor, check } = await watchWithSteps(w, '/consent', [{ action: 'click', selector: '#accept' }], PRICE);
    assert.equal(monitor.observations[0].value, 1999);
    const second = await check();
    assert.deepEqual(second.last_issues, [], 'the wall was there again, so its button was');
    assert.equal(second.observations[0].value, 1999);
    assert.deepEqual(state.cookiesSeen, ['', '', ''], 'the preview and both checks came without the consent cookie');
  } finally {
    delete state.cookiesSeen;
  }
});

test('requests a step causes pass the SSRF guard: the site answers its own, the refused address is never asked', async () => {
  state.otherOrigin = refusedHost.url;
  const { monitor, preview, check } = await watchWithSteps(w, '/step-fetches', [{ action: 'click', selector: '#go' }], text('#after'));
  assert.equal(preview.steps[0].ok, true);
  assert.match(monitor.observations[0].value, /^own reached, other /);
  // Counted around a check whose page shows the answer: its request was
  // answered before the page was read, whatever the machine's load.
  const ownBefore = w.site.hits.get('/list-more') ?? 0;
  const again = await check();
  assert.deepEqual(again.last_issues, []);
  assert.match(again.observations[0].value, /^own reached, other /);
  assert.equal((w.site.hits.get('/list-more') ?? 0) - ownBefore, 1, 'the check fetched from the site, once');
  assert.equal(refusedHost.hits.size, 0, 'the refused address got no request');
});

test('a redirect off the site after a step is refused: navigation_refused, the step named, the preview makes no monitor', async () => {
  state.otherOrigin = otherSite.url;
  const { token } = await createAccountWithToken(w.t.app);
  const res = await previewWithSteps(w, token, '/off-site-redirect', [{ action: 'click', selector: '#away' }]);
  assert.equal(res.statusCode, 201, res.body);
  const [outcome] = res.json().data.steps;
  assert.equal(outcome.issue?.code, 'navigation_refused', JSON.stringify(outcome));
  assert.match(outcome.issue.message, /127\.0\.0\.3/);
  assert.deepEqual(
    res.json().data.issues.map((i: { code: string }) => i.code),
    ['step_failed'],
  );
  assert.equal(w.site.hits.get('/bounce'), 1, 'the redirect was asked for');
  assert.equal(outcome.title, null, "the other site's title is not noted");
  assert.equal(res.json().data.final_url, `${w.site.url}/off-site-redirect`, 'the preview stands where the page was on the site');
  assert.ok(!res.json().data.elements.some((e: { text: string }) => e.text === 'Other site'), 'no element of the other site is offered');
  // The redirected request itself does reach the other site (Playwright's routes do not see redirect hops):
  // what is refused is its page, which no monitor may be made from.
  const created = await postMonitor(w.t.app, token, {
    preview_id: res.json().data.id,
    targets: [text('#product-title')],
    steps: [{ action: 'click', selector: '#away' }],
    interval_minutes: 15,
  });
  assert.equal(created.statusCode, 422, created.body);
  assert.equal(created.json().error.code, 'preview_invalid');
});

test('downloads, file choosers and permission prompts a step causes are dismissed: the step is ok and the page stays', async () => {
  // The prompts are answered asynchronously, so the steps wait for the page to say how.
  const steps = [
    { action: 'click', selector: '#go' },
    { action: 'wait_for', text: 'geolocation', timeout_ms: 5000 },
  ];
  const { monitor, preview } = await watchWithSteps(w, '/prompts', steps, text('#after'));
  assert.deepEqual([preview.steps[0].ok, preview.steps[0].url, preview.steps[0].title], [true, `${w.site.url}/prompts`, 'Prompts']);
  assert.deepEqual(monitor.last_issues, []);
  assert.equal(monitor.observations[0].value, 'notifications denied, geolocation denied');
});
