import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type TestApp } from '../helpers/test-app.ts';
import type { FixtureServer } from '../helpers/fixture-server.ts';
import { useMonitoringWorld } from '../helpers/monitoring-world.ts';
import { createOwner, signedIn } from '../helpers/dashboard-client.ts';
import { routeStepSites } from '../helpers/step-sites.ts';
import { formatStepLines, parseStepLines } from '../../src/web/step-lines.ts';

// The dashboard's step editor (issue #42): steps are lines of the new-monitor
// form, tried on a fresh preview; each step's result (ok or the issue, and the
// page's URL and title after it) is shown on the form when one fails and on the
// preview page when all succeed; the monitor is made with the steps its
// preview ran. Real Chromium.

let t: TestApp, site: FixtureServer;
useMonitoringWorld({}, (w) => {
  ({ t, site } = w);
  routeStepSites(site, { price: '€19.99', password: 'x', portalPrice: '€1.00', otherOrigin: 'http://127.0.0.2', acceptId: 'accept' });
});

test('every kind of step line reads back as it was written', () => {
  const lines = [
    'click #accept',
    'type #user = buyer@example.com',
    'type #password = secret:supplier_password',
    'select #size = L',
    'press Enter on #postcode',
    'press Tab',
    'wait_for .price within 5000',
    'wait_for "In stock"',
    'wait 500',
    'scroll bottom',
    'check #terms',
    'goto https://shop.example/basket',
  ].join('\n');
  const { steps, errors } = parseStepLines(lines);
  assert.deepEqual(errors, []);
  assert.equal(formatStepLines(steps), lines);
  assert.deepEqual(parseStepLines('jump #x\nselect #size').errors, [
    'line 1: unknown action "jump"',
    'line 2: select needs "selector = value"',
  ]);
});

/** The row of the step-results table for one step: its number, action, result, and the page's URL and title after it. */
function stepRow(n: number, action: string, result: string, url: string, title: string): RegExp {
  const esc = (x: string) => x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(
    `<tr><td>${n}</td><td><code>${action}</code></td><td>${result}</td><td class="url">${esc(url)}</td><td>${esc(title)}</td></tr>`,
  );
}

test('a failing step brings the form back with the issue in words, after the results of the steps before it', async () => {
  const { email } = await createOwner(t.app);
  const client = await signedIn(t.app, email);
  await client.get('/monitors/new');
  const failed = await client.post('/monitors/new', {
    url: `${site.url}/cookie-wall`,
    load_mode: 'browser',
    steps: 'wait 10\nclick #agree',
  });
  assert.equal(failed.statusCode, 422, failed.body.slice(0, 500));
  assert.match(failed.body, /Step 2 \(click\) failed/);
  assert.match(failed.body, stepRow(1, 'wait', '<strong>ok</strong>', `${site.url}/cookie-wall`, 'Cookie wall'));
  assert.match(
    failed.body,
    stepRow(2, 'click', '<strong>failed</strong>: no element matches #agree', `${site.url}/cookie-wall`, 'Cookie wall'),
  );
  assert.match(failed.body, /wait 10\nclick #agree<\/textarea>/, 'the lines are kept for fixing');
});

test("when every step succeeds, the preview page shows each step's ok with the page's URL and title after it", async () => {
  const { email } = await createOwner(t.app);
  const client = await signedIn(t.app, email);
  await client.get('/monitors/new');
  const ok = await client.post('/monitors/new', {
    url: `${site.url}/cookie-wall`,
    load_mode: 'browser',
    steps: `click #accept\ngoto ${site.url}/sizes`,
  });
  assert.equal(ok.statusCode, 303, ok.body.slice(0, 500));
  const page = await client.get(ok.headers.location as string);
  assert.equal(page.statusCode, 200);
  assert.match(page.body, stepRow(1, 'click', '<strong>ok</strong>', `${site.url}/cookie-wall`, 'Cookie wall'));
  assert.match(page.body, stepRow(2, 'goto', '<strong>ok</strong>', `${site.url}/sizes`, 'Sizes'));
  assert.doesNotMatch(page.body, /<strong>failed<\/strong>/);
});

test('the monitor is made with the steps its preview ran, reading the page as it stood after them', async () => {
  const { email } = await createOwner(t.app);
  const client = await signedIn(t.app, email);
  await client.get('/monitors/new');
  const ok = await client.post('/monitors/new', { url: `${site.url}/cookie-wall`, load_mode: 'browser', steps: 'click #accept' });
  assert.equal(ok.statusCode, 303, ok.body.slice(0, 500));
  const location = ok.headers.location as string;
  const page = await client.get(location);
  assert.match(page.body, /Steps run before reading<\/dt><dd><pre>click #accept<\/pre>/);
  assert.match(page.body, /<option value="sel:#price"[^>]*>/, 'the elements are those after the steps');
  const key = /name="idempotency_key" value="([^"]+)"/.exec(page.body)![1]!;
  const created = await client.post(location, {
    t1_element: 'sel:#price',
    t1_label: 'Price',
    t1_kind: 'text',
    t1_rule: 'changed',
    interval: '15',
    action: 'create',
    idempotency_key: key,
  });
  assert.equal(created.statusCode, 303, created.body.slice(0, 2000));
  const rows = await t.db.query<{ steps: unknown }>('SELECT steps FROM monitors WHERE url = $1', [`${site.url}/cookie-wall`]);
  assert.deepEqual(rows[0]?.steps, [{ action: 'click', selector: '#accept' }]);
});
