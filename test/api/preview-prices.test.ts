import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { bearer, createAccountWithToken, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.ts';

// Prices as a user sends them: a preview of a page, then price targets that
// name the currency and no `decimal` (the automatic reading).
const PAGE = `<!doctype html><html><body>
<p>Rp <span id="idr">31.500</span></p>
<p><span id="vnd">12.500 ₫</span></p>
<p><span id="huf">1.727 Ft</span></p>
<p><span id="kwd">0.7505 KWD</span></p>
<p><span id="rupiah">Rp 31.500</span></p>
<p><span id="feet">16.00 ft</span></p>
<p><span id="threshold">Orders $49+</span></p>
<p><span id="was">Was $120.00 Now $60.00</span></p>
</body></html>`;

let t: TestApp;
let site: FixtureServer;
before(async () => {
  t = await startTestApp();
  site = await startFixtureServer({
    '/prices': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(PAGE);
    },
  });
});
after(async () => {
  await t.close();
  await site.close();
});

async function evaluatePrices(targets: { id: string; currency: string; decimal?: string }[]) {
  const { token } = await createAccountWithToken(t.app);
  const headers = { ...bearer(token), 'content-type': 'application/json' };
  const payload = { url: `${site.url}/prices`, load_mode: 'html' };
  const created = await t.app.inject({ method: 'POST', url: '/api/v1/previews', headers, payload });
  assert.equal(created.statusCode, 201, created.body);
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/v1/previews/${created.json().data.id}/evaluate`,
    headers,
    payload: { targets: targets.map((p) => ({ ...p, kind: 'price', selection: { scope: 'selector', selector: `#${p.id}` } })) },
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().data.targets as { ok: boolean; value: number | null; display: string | null; issues: { code: string }[] }[];
}

test('without a decimal setting, prices written without decimals are read in full and the display says how', async () => {
  const [idr, vnd, huf] = await evaluatePrices([
    { id: 'idr', currency: 'IDR' },
    { id: 'vnd', currency: 'VND' },
    { id: 'huf', currency: 'HUF' },
  ]);
  assert.ok(idr && vnd && huf);
  assert.deepEqual([idr.value, idr.display], [3150000, '31,500.00 IDR (automatic reading: "." groups thousands)']);
  assert.deepEqual([vnd.value, vnd.display], [12500, '12,500 VND (automatic reading: "." groups thousands)']);
  assert.deepEqual([huf.value, huf.display], [172700, '1,727.00 HUF (automatic reading: "." groups thousands)']);
});

test('a price with more decimals than its currency is an issue, never a rounded value', async () => {
  const [kwd, vnd] = await evaluatePrices([
    { id: 'kwd', currency: 'KWD' },
    { id: 'vnd', currency: 'VND', decimal: '.' },
  ]);
  assert.ok(kwd && vnd);
  assert.deepEqual([kwd.ok, kwd.value, kwd.issues[0]?.code], [false, null, 'price_ambiguous']);
  assert.deepEqual([vnd.ok, vnd.value, vnd.issues[0]?.code], [false, null, 'price_ambiguous']);
});

test('without a decimal setting, a price element holding its sign reads Rp 31.500 as 31,500 IDR', async () => {
  const [idr] = await evaluatePrices([{ id: 'rupiah', currency: 'IDR' }]);
  assert.ok(idr);
  assert.deepEqual([idr.ok, idr.value, idr.display], [true, 3150000, '31,500.00 IDR (automatic reading: "." groups thousands)']);
});

test('a measure or a threshold is not a price: no value, price_not_found', async () => {
  const [feet, threshold] = await evaluatePrices([
    { id: 'feet', currency: 'USD' },
    { id: 'threshold', currency: 'USD' },
  ]);
  assert.ok(feet && threshold);
  assert.deepEqual([feet.ok, feet.value, feet.issues[0]?.code], [false, null, 'price_not_found']);
  assert.deepEqual([threshold.ok, threshold.value, threshold.issues[0]?.code], [false, null, 'price_not_found']);
});

test('of a former and a current price the current one is the value and the display names the one set aside', async () => {
  const [was] = await evaluatePrices([{ id: 'was', currency: 'USD' }]);
  assert.ok(was);
  assert.deepEqual([was.value, was.display], [6000, '60.00 USD (set aside: $120.00 labelled as a former price)']);
});
