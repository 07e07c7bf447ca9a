import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { TestApp } from '../helpers/test-app.ts';
import type { FixtureServer } from '../helpers/fixture-server.ts';
import { useMonitoringWorld } from '../helpers/monitoring-world.ts';
import { createOwner, previewThroughForm, signedIn, type DashboardClient } from '../helpers/dashboard-client.ts';
import { makePdf } from '../helpers/pdf-documents.ts';

// The guided flow offers what the API reads beyond CSS selectors: a JSON
// document's paths as elements, and a selector typed in another language.

let t: TestApp, site: FixtureServer;
useMonitoringWorld({}, (w) => ({ t, site } = w));

let served = 0;

async function previewOf(client: DashboardClient, contentType: string, body: string | Buffer): Promise<string> {
  const path = `/document-${++served}`;
  site.route(path, (_req, res) => {
    res.writeHead(200, { 'content-type': contentType });
    res.end(body);
  });
  return previewThroughForm(client, t.clock, `${site.url}${path}`);
}

async function owner(): Promise<DashboardClient> {
  const { email } = await createOwner(t.app);
  return signedIn(t.app, email);
}

const API = JSON.stringify({ offers: [{ price: 24.99, in_stock: true }], name: 'Kettle' });

test("a JSON document's paths are the elements offered; choosing one creates a json target", async () => {
  const client = await owner();
  const location = await previewOf(client, 'application/json', API);
  const page = await client.get(location);
  assert.equal(page.statusCode, 200);
  assert.match(page.body, /<dt>Document<\/dt><dd>JSON<\/dd>/);
  assert.match(
    page.body,
    /<option value="json:\$\.offers\[0\]\.price"[^>]*>&lt;number&gt; 24\.99 \[price\] — \$\.offers\[0\]\.price<\/option>/,
  );
  assert.match(page.body, /<option value="json" selected>JSONPath/, 'own selectors default to JSONPath on a JSON document');
  const fields = { t1_element: 'json:$.offers[0].price', t1_kind: 'price', t1_currency: 'EUR', t1_rule: 'dropped', interval: '5' };
  const evaluated = await client.post(location, { ...fields, action: 'evaluate' });
  assert.equal(evaluated.statusCode, 200, evaluated.body.slice(0, 2000));
  assert.match(evaluated.body, /<span class="value">24\.99 EUR<\/span>/);
  const key = /name="idempotency_key" value="([^"]+)"/.exec(evaluated.body)![1]!;
  const created = await client.post(location, { ...fields, action: 'create', idempotency_key: key });
  assert.equal(created.statusCode, 303, created.body.slice(0, 2000));
  const monitor = await client.get(created.headers.location as string);
  assert.match(monitor.body, /<td data-label="Selection">JSONPath <code>\$\.offers\[0\]\.price<\/code><\/td>/);
});

test('a JSONPath typed as the own selector is a json selection; a bad one is shown as selector_invalid', async () => {
  const client = await owner();
  const location = await previewOf(client, 'application/json', API);
  await client.get(location);
  const own = { t1_element: 'page', t1_selector_type: 'json', t1_kind: 'text', t1_rule: 'changed', interval: '5' };
  const evaluated = await client.post(location, { ...own, t1_selector: '$.name', action: 'evaluate' });
  assert.equal(evaluated.statusCode, 200, evaluated.body.slice(0, 2000));
  assert.match(evaluated.body, /<span class="value">&quot;Kettle&quot;<\/span>/);
  const invalid = await client.post(location, { ...own, t1_selector: '$.name[', action: 'evaluate' });
  assert.equal(invalid.statusCode, 422);
  assert.match(invalid.body, /selector_invalid: the path is not valid JSONPath/);
});

test('an XPath expression typed as the own selector is an xpath selection, shown as XPath on the monitor', async () => {
  const client = await owner();
  const location = await previewOf(client, 'text/html', '<table><tr><th>Price</th><td>24,99 €</td></tr></table>');
  const page = await client.get(location);
  assert.match(page.body, /<option value="xpath">XPath<\/option>/);
  const fields = {
    t1_element: 'page',
    t1_selector_type: 'xpath',
    t1_selector: "//th[.='Price']/following-sibling::td",
    t1_kind: 'price',
    t1_currency: 'EUR',
    t1_rule: 'changed',
    interval: '5',
  };
  const evaluated = await client.post(location, { ...fields, action: 'evaluate' });
  assert.equal(evaluated.statusCode, 200, evaluated.body.slice(0, 2000));
  assert.match(evaluated.body, /<span class="value">24\.99 EUR<\/span>/);
  const key = /name="idempotency_key" value="([^"]+)"/.exec(evaluated.body)![1]!;
  const created = await client.post(location, { ...fields, action: 'create', idempotency_key: key });
  assert.equal(created.statusCode, 303, created.body.slice(0, 2000));
  const monitor = await client.get(created.headers.location as string);
  assert.match(monitor.body, /<td data-label="Selection">XPath <code>\/\/th\[\.=&#39;Price&#39;\]\/following-sibling::td<\/code><\/td>/);
});

test('an XPath expression outside the core functions typed as the own selector is shown as selector_invalid', async () => {
  const client = await owner();
  const location = await previewOf(client, 'text/html', '<table><tr><th>Price</th><td>24,99 €</td></tr></table>');
  await client.get(location);
  const fields = { t1_element: 'page', t1_selector_type: 'xpath', t1_kind: 'text', t1_rule: 'changed', interval: '5' };
  const refused = await client.post(location, { ...fields, t1_selector: "document('http://127.0.0.1/')//td", action: 'evaluate' });
  assert.equal(refused.statusCode, 422);
  assert.match(refused.body, /selector_invalid: document\(\) is not an XPath 1\.0 core function/);
});

test('a PDF preview is offered as a whole document; a price target on it is created', async () => {
  const client = await owner();
  const location = await previewOf(
    client,
    'application/pdf',
    makePdf([{ lines: [{ text: 'Tariff', size: 18 }, { text: 'Tariff S 9.90 EUR' }] }]),
  );
  const page = await client.get(location);
  assert.equal(page.statusCode, 200);
  assert.match(page.body, /<dt>Document<\/dt><dd>PDF<\/dd>/);
  assert.match(
    page.body,
    /<option value="page" selected>Whole document<\/option><\/select>/,
    'pages and headings are no choice of their own',
  );
  const fields = { t1_element: 'page', t1_kind: 'price', t1_currency: 'EUR', t1_rule: 'changed', interval: '5' };
  const evaluated = await client.post(location, { ...fields, action: 'evaluate' });
  assert.equal(evaluated.statusCode, 200, evaluated.body.slice(0, 2000));
  assert.match(evaluated.body, /<span class="value">9\.90 EUR<\/span>/);
  const key = /name="idempotency_key" value="([^"]+)"/.exec(evaluated.body)![1]!;
  const created = await client.post(location, { ...fields, action: 'create', idempotency_key: key });
  assert.equal(created.statusCode, 303, created.body.slice(0, 2000));
});
