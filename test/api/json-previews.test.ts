import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { bearer, createAccountWithToken, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.ts';
import { postMonitor, requestPreview } from '../helpers/monitor-api.ts';

// JSON documents through the API: a preview of a JSON API lists its paths,
// json selections are evaluated and confirmed at creation like CSS selectors,
// and hostile documents (too large, too deep, not JSON) are refused clearly.

const API = {
  product: { name: 'Wasserkocher “Ω”', sku: 'K-42' },
  offers: [
    { price: 24.99, currency: 'EUR', in_stock: true, url: 'https://shop.example/offer/1' },
    { price: 26.5, currency: 'EUR', in_stock: false, url: 'https://shop.example/offer/2' },
  ],
};

let t: TestApp;
let site: FixtureServer;
before(async () => {
  t = await startTestApp();
  site = await startFixtureServer({
    '/api/item': (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify(API));
    },
    '/api/problem': (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/problem+json' });
      res.end(JSON.stringify({ title: 'fine', price: '€ 9,90' }));
    },
    '/api/broken': (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"offers": [1, 2');
    },
    '/api/deep': (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`${'{"a":'.repeat(200_000)}1${'}'.repeat(200_000)}`);
    },
    '/api/ten-megabytes': (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ pad: 'x'.repeat(10 * 1024 * 1024) }));
    },
    '/api/near-limit': (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const items = Array.from({ length: 60_000 }, (_, i) => ({ id: i, name: `item ${i}`, tags: ['a', 'b'], price: i + 0.99 }));
      res.end(JSON.stringify({ items, total: { price: 12.34 } }));
    },
  });
});
after(async () => {
  await t.close();
  await site.close();
});

async function preview(path: string) {
  const { token } = await createAccountWithToken(t.app);
  const headers = { ...bearer(token), 'content-type': 'application/json' };
  const res = await requestPreview(t.app, token, `${site.url}${path}`);
  return { token, headers, res };
}

async function evaluate(path: string, targets: unknown[]) {
  const { token, headers, res } = await preview(path);
  assert.equal(res.statusCode, 201, res.body);
  const id = res.json().data.id as string;
  const evaluated = await t.app.inject({ method: 'POST', url: `/api/v1/previews/${id}/evaluate`, headers, payload: { targets } });
  return { token, previewId: id, evaluated };
}

test('a preview of a JSON API is accepted: format json, its paths with sample values as elements', async () => {
  const { res } = await preview('/api/item');
  assert.equal(res.statusCode, 201, res.body);
  const data = res.json().data;
  assert.equal(data.format, 'json');
  assert.equal(data.title, null);
  const byPath = new Map((data.elements as { selector: string; text: string }[]).map((e) => [e.selector, e]));
  assert.deepEqual(byPath.get('$.offers[0].price'), { selector: '$.offers[0].price', tag: 'number', text: '24.99', hints: ['price'] });
  assert.deepEqual(byPath.get('$.offers'), { selector: '$.offers', tag: 'array', text: '2 items', hints: [] });
  assert.equal(byPath.get('$.product.name')?.text, 'Wasserkocher “Ω”');
});

test('a +json content type is a JSON document too', async () => {
  const { res } = await preview('/api/problem');
  assert.equal(res.statusCode, 201, res.body);
  assert.equal(res.json().data.format, 'json');
});

test('evaluate reads price, text and availability by JSONPath', async () => {
  const { evaluated } = await evaluate('/api/item', [
    { id: 'price', kind: 'price', selection: { scope: 'json', path: '$.offers[0].price' }, currency: 'EUR' },
    { id: 'name', kind: 'text', selection: { scope: 'json', path: '$.product.name' } },
    { id: 'stock', kind: 'availability', selection: { scope: 'json', path: '$.offers[?@.price > 25].in_stock' } },
  ]);
  assert.equal(evaluated.statusCode, 200, evaluated.body);
  const [price, name, stock] = evaluated.json().data.targets;
  assert.deepEqual([price.value, price.display], [2499, '24.99 EUR']);
  assert.equal(name.value, '"Wasserkocher “Ω”"');
  assert.equal(stock.value, 'out_of_stock');
});

test('evaluate reads links as the URL strings a JSONPath selects', async () => {
  const { evaluated } = await evaluate('/api/item', [
    { id: 'links', kind: 'links', selection: { scope: 'json', path: '$.offers[*].url' } },
  ]);
  assert.equal(evaluated.statusCode, 200, evaluated.body);
  assert.deepEqual(evaluated.json().data.targets[0].value, ['https://shop.example/offer/1', 'https://shop.example/offer/2']);
});

test('a path selecting several values for a price is selector_ambiguous at evaluate, and creation refuses it as target_invalid', async () => {
  const target = { id: 'p', kind: 'price', selection: { scope: 'json', path: '$.offers[*].price' }, currency: 'EUR' };
  const { token, previewId, evaluated } = await evaluate('/api/item', [target]);
  assert.equal(evaluated.json().data.targets[0].issues[0].code, 'selector_ambiguous');
  const created = await postMonitor(t.app, token, { preview_id: previewId, targets: [target], interval_minutes: 5 });
  assert.equal(created.statusCode, 422, created.body);
  assert.equal(created.json().error.code, 'target_invalid');
  assert.match(created.body, /selector_ambiguous/u);
});

test('a path that is not JSONPath is refused with target_invalid, naming selector_invalid in words', async () => {
  const { evaluated } = await evaluate('/api/item', [{ id: 'p', kind: 'text', selection: { scope: 'json', path: '$.offers[' } }]);
  assert.equal(evaluated.statusCode, 422);
  const { error } = evaluated.json();
  assert.equal(error.code, 'target_invalid');
  assert.deepEqual(error.details, [
    {
      field: 'targets[0].selection.path',
      message: 'selector_invalid: the path is not valid JSONPath (RFC 9535): the path ends too early at character 10',
    },
  ]);
});

test('a regex filter function is refused as selector_too_costly', async () => {
  const { evaluated } = await evaluate('/api/item', [
    { id: 'p', kind: 'text', selection: { scope: 'json', path: '$.offers[?match(@.currency, "(E+)+$")]' } },
  ]);
  assert.equal(evaluated.statusCode, 422);
  assert.match(evaluated.json().error.details[0].message, /^selector_too_costly: match\(\)/u);
});

test('a monitor of a JSON price is created from its preview', async () => {
  const target = { id: 'p', kind: 'price', selection: { scope: 'json', path: '$.offers[0].price' }, currency: 'EUR', rule: 'dropped' };
  const { token, previewId } = await evaluate('/api/item', [target]);
  const created = await postMonitor(t.app, token, { preview_id: previewId, targets: [target], interval_minutes: 5 });
  assert.equal(created.statusCode, 201, created.body);
  const read = await t.app.inject({ method: 'GET', url: `/api/v1/monitors/${created.json().data.id}`, headers: bearer(token) });
  assert.deepEqual(read.json().data.targets[0].selection, { scope: 'json', path: '$.offers[0].price' });
});

test('a document served as JSON that does not parse is refused at preview with json_invalid', async () => {
  const { res } = await preview('/api/broken');
  assert.equal(res.statusCode, 422, res.body);
  assert.match(res.json().error.details[0].message, /^json_invalid: the document is not valid JSON/u);
});

test('a JSON document nested 200,000 levels deep is refused at preview with json_invalid', async () => {
  const { res } = await preview('/api/deep');
  assert.equal(res.statusCode, 422, res.body);
  assert.match(res.json().error.details[0].message, /^json_invalid: the JSON document is nested more than 64 levels deep/u);
});

test('a JSON document of 10 MB is refused as too_large', async () => {
  const { res } = await preview('/api/ten-megabytes');
  assert.equal(res.statusCode, 422, res.body);
  assert.match(res.json().error.details[0].message, /^too_large/u);
});

test('a JSON document near the size limit is previewed and evaluated in the extraction threads while /healthz answers', async () => {
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  let done = false;
  const work = evaluate('/api/near-limit', [
    { id: 'total', kind: 'price', selection: { scope: 'json', path: '$..total.price' }, currency: 'EUR' },
    { id: 'cheap', kind: 'text', selection: { scope: 'json', path: '$.items[?@.price < 1].name' } },
  ]).finally(() => (done = true));
  let probes = 0;
  do {
    const started = performance.now();
    assert.equal((await fetch(`${base}/healthz`)).status, 200);
    assert.ok(performance.now() - started < 2000, '/healthz is answered while the document is read');
    probes++;
  } while (!done);
  const { evaluated } = await work;
  assert.equal(evaluated.statusCode, 200, evaluated.body);
  const [total, cheap] = evaluated.json().data.targets;
  assert.equal(total.value, 1234);
  assert.equal(cheap.value, '"item 0"');
  assert.ok(probes >= 1);
});
