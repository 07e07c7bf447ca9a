import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { bearer, createAccountWithToken, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.ts';
import { postMonitor, requestPreview } from '../helpers/monitor-api.ts';
import { makePdf, pdfBomb } from '../helpers/pdf-documents.ts';

// PDF documents through the API: previewed as their pages and headings,
// read as text for text, price and links targets on the whole document;
// encrypted, textless and hostile files refused or bounded with a clear issue.

const PRICE_LIST = makePdf([
  { lines: [{ text: 'Price list', size: 20 }, { text: 'Kettle 24.99 EUR' }], links: ['https://shop.example/kettle'] },
  { lines: [{ text: 'Delivery', size: 16 }, { text: 'Within 3 days' }] },
]);

let t: TestApp;
let site: FixtureServer;
before(async () => {
  t = await startTestApp({ loaders: { extractionBudgetMs: 5000 } });
  const serve = (body: Buffer) => (_req: unknown, res: ServerResponse) => {
    res.writeHead(200, { 'content-type': 'application/pdf' });
    res.end(body);
  };
  site = await startFixtureServer({
    '/prices.pdf': serve(PRICE_LIST),
    '/encrypted.pdf': serve(makePdf([{ lines: [{ text: 'secret' }] }], { encrypted: true })),
    '/scan.pdf': serve(makePdf([{ content: Buffer.from('0.5 g 0 0 595 842 re f') }])),
    '/bomb.pdf': serve(pdfBomb(64)),
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

test('a PDF preview is format pdf, titled by its first heading, listing its pages and headings', async () => {
  const { res } = await preview('/prices.pdf');
  assert.equal(res.statusCode, 201, res.body);
  const data = res.json().data;
  assert.deepEqual([data.format, data.title], ['pdf', 'Price list']);
  assert.deepEqual(
    data.elements.map((e: { selector: string; tag: string }) => `${e.selector}:${e.tag}`),
    ['page 1:page', 'page 1:heading', 'page 2:page', 'page 2:heading'],
  );
});

test('text, price and links targets read the whole PDF, and a monitor is created from them', async () => {
  const { token, headers, res } = await preview('/prices.pdf');
  const id = res.json().data.id as string;
  const targets = [
    { id: 'text', kind: 'text', selection: { scope: 'page' }, rule: 'changed' },
    { id: 'price', kind: 'price', selection: { scope: 'page' }, currency: 'EUR', rule: 'dropped' },
    { id: 'links', kind: 'links', selection: { scope: 'page' }, rule: 'new_links' },
  ];
  const evaluated = await t.app.inject({ method: 'POST', url: `/api/v1/previews/${id}/evaluate`, headers, payload: { targets } });
  assert.equal(evaluated.statusCode, 200, evaluated.body);
  const [text, price, links] = evaluated.json().data.targets;
  assert.equal(text.value, 'Price list Kettle 24.99 EUR Delivery Within 3 days https://shop.example/kettle');
  assert.deepEqual([price.value, price.display], [2499, '24.99 EUR']);
  assert.deepEqual(links.value, ['https://shop.example/kettle']);
  const created = await postMonitor(t.app, token, { preview_id: id, targets, interval_minutes: 5 });
  assert.equal(created.statusCode, 201, created.body);
});

test('a selector on a PDF is selector_missing at evaluate', async () => {
  const { headers, res } = await preview('/prices.pdf');
  const targets = [{ id: 'x', kind: 'text', selection: { scope: 'xpath', expression: '//p' } }];
  const evaluated = await t.app.inject({
    method: 'POST',
    url: `/api/v1/previews/${res.json().data.id}/evaluate`,
    headers,
    payload: { targets },
  });
  assert.equal(evaluated.json().data.targets[0].issues[0].code, 'selector_missing');
});

test('an encrypted PDF is refused at preview with pdf_unreadable', async () => {
  const { res } = await preview('/encrypted.pdf');
  assert.equal(res.statusCode, 422, res.body);
  assert.match(res.json().error.details[0].message, /^pdf_unreadable: the PDF is encrypted/u);
});

test('a scanned PDF without a text layer is refused at preview with pdf_unreadable', async () => {
  const { res } = await preview('/scan.pdf');
  assert.equal(res.statusCode, 422, res.body);
  assert.match(res.json().error.details[0].message, /^pdf_unreadable: the PDF has no text layer/u);
});

test('a PDF bomb (150 KB expanding to 64 MB of text) is bounded by the extraction budget while /healthz answers', async () => {
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  let done = false;
  const work = preview('/bomb.pdf').finally(() => (done = true));
  do {
    const started = performance.now();
    assert.equal((await fetch(`${base}/healthz`)).status, 200);
    assert.ok(performance.now() - started < 2000, '/healthz is answered while the PDF is read');
  } while (!done);
  const { res } = await work;
  assert.equal(res.statusCode, 422, res.body);
  assert.match(res.json().error.details[0].message, /^extraction_timeout: extracting this page took longer than 5 s/u);
});
