import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { bearer, createAccountWithToken, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.ts';
import { postMonitor } from '../helpers/monitor-api.ts';

// XPath selections through the API: evaluated over the preview's capture,
// confirmed at creation, refused when invalid or outside the safe function
// set, and bounded by the extraction budget on a page where an allowed
// expression turns out costly.

const PAGE = `<!doctype html><html><body>
<h1>Timetable</h1>
<table id="specs"><tr><th>Price</th><td>24,99 €</td></tr><tr><th>Next departure</th><td>08:15</td></tr></table>
</body></html>`;
const BIG = `<!doctype html><html><body>${'<div><span>x</span></div>'.repeat(5_000)}</body></html>`;

let t: TestApp;
let site: FixtureServer;
before(async () => {
  t = await startTestApp({ loaders: { extractionBudgetMs: 5000 } });
  site = await startFixtureServer({
    '/timetable': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(PAGE);
    },
    '/big': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(BIG);
    },
  });
});
after(async () => {
  await t.close();
  await site.close();
});

async function evaluate(path: string, targets: unknown[]) {
  const { token } = await createAccountWithToken(t.app);
  const headers = { ...bearer(token), 'content-type': 'application/json' };
  const created = await t.app.inject({
    method: 'POST',
    url: '/api/v1/previews',
    headers,
    payload: { url: `${site.url}${path}`, load_mode: 'html' },
  });
  assert.equal(created.statusCode, 201, created.body);
  const previewId = created.json().data.id as string;
  const evaluated = await t.app.inject({ method: 'POST', url: `/api/v1/previews/${previewId}/evaluate`, headers, payload: { targets } });
  return { token, previewId, evaluated };
}

const NEXT = {
  id: 'next',
  kind: 'text',
  selection: { scope: 'xpath', expression: "//th[text()='Next departure']/following-sibling::td" },
  rule: 'changed',
};

test('evaluate reads a text and a price by XPath, and creation accepts the expression', async () => {
  const price = { id: 'price', kind: 'price', currency: 'EUR', selection: { scope: 'xpath', expression: "//th[.='Price']/../td" } };
  const { token, previewId, evaluated } = await evaluate('/timetable', [NEXT, price]);
  assert.equal(evaluated.statusCode, 200, evaluated.body);
  const [next, read] = evaluated.json().data.targets;
  assert.equal(next.value, '08:15');
  assert.deepEqual([read.value, read.display], [2499, '24.99 EUR']);
  const created = await postMonitor(t.app, token, { preview_id: previewId, targets: [NEXT], interval_minutes: 5 });
  assert.equal(created.statusCode, 201, created.body);
  const monitor = await t.app.inject({ method: 'GET', url: `/api/v1/monitors/${created.json().data.id}`, headers: bearer(token) });
  assert.deepEqual(monitor.json().data.targets[0].selection, NEXT.selection);
});

test('an XPath expression matching nothing is selector_missing at evaluate and target_invalid at creation', async () => {
  const missing = { id: 'm', kind: 'text', selection: { scope: 'xpath', expression: '//video' } };
  const { token, previewId, evaluated } = await evaluate('/timetable', [missing]);
  assert.equal(evaluated.json().data.targets[0].issues[0].code, 'selector_missing');
  const created = await postMonitor(t.app, token, { preview_id: previewId, targets: [missing], interval_minutes: 5 });
  assert.equal(created.statusCode, 422);
  assert.equal(created.json().error.code, 'target_invalid');
});

test('document(), extension functions and invalid XPath are target_invalid (selector_invalid); costly ones selector_too_costly', async () => {
  const refused = [
    ["document('http://127.0.0.1/')", 'selector_invalid: document() is not an XPath 1.0 core function'],
    ['//td[', 'selector_invalid: the expression is not valid XPath 1.0'],
    ['//a//b//c//d', 'selector_too_costly: the expression has 4 steps that scan the page'],
  ];
  const { evaluated } = await evaluate(
    '/timetable',
    refused.map(([expression], i) => ({ id: `x${i}`, kind: 'text', selection: { scope: 'xpath', expression } })),
  );
  assert.equal(evaluated.statusCode, 422);
  const { error } = evaluated.json();
  assert.equal(error.code, 'target_invalid');
  refused.forEach(([, message], i) => {
    assert.equal(error.details[i].field, `targets[${i}].selection.expression`);
    assert.ok(error.details[i].message.startsWith(message), error.details[i].message);
  });
});

test('an allowed expression that is costly on a large page ends as extraction_timeout within the budget while /healthz answers', async () => {
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  let done = false;
  const work = evaluate('/big', [
    { id: 'q', kind: 'text', selection: { scope: 'xpath', expression: '//span[count(//span) > count(../preceding::span)]' } },
  ]).finally(() => (done = true));
  do {
    const started = performance.now();
    assert.equal((await fetch(`${base}/healthz`)).status, 200);
    assert.ok(performance.now() - started < 2000, '/healthz is answered while the expression runs');
  } while (!done);
  const { evaluated } = await work;
  assert.equal(evaluated.statusCode, 200, evaluated.body);
  assert.equal(evaluated.json().data.targets[0].issues[0].code, 'extraction_timeout');
});
