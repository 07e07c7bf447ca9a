import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { bearer, createAccountWithToken, startTestApp, type TestApp } from '../helpers/test-app.ts';

// A small read-byte allowance (as an operator's plans file would set) keeps these tests fast;
// the pro defaults are asserted in rate-limits.test.ts.
let t: TestApp;
before(async () => {
  t = await startTestApp({ plans: { pro: { read_bytes_per_day: 3000 } } });
});
after(() => t.close());

const get = (token: string, url = '/api/v1/usage') => t.app.inject({ method: 'GET', url, headers: bearer(token) });

test('successful GET bodies are charged as read bytes, measured before compression', async () => {
  t.clock.set('2026-05-01T10:00:00Z');
  const { token } = await createAccountWithToken(t.app);
  const res = await t.app.inject({ method: 'GET', url: '/api/v1/usage', headers: { ...bearer(token), 'accept-encoding': 'gzip' } });
  assert.equal(res.statusCode, 200);
  assert.equal(res.headers['x-read-bytes-day-limit'], '3000');
  assert.equal(Number(res.headers['x-read-bytes-day-remaining']), 3000 - Buffer.byteLength(res.body));
});

test('a rejected read is not charged read bytes', async () => {
  t.clock.set('2026-05-02T10:00:00Z');
  const { token } = await createAccountWithToken(t.app);
  const bad = await get(token, '/api/v1/usage?limit=5');
  assert.equal(bad.statusCode, 400);
  const ok = await get(token);
  assert.equal(Number(ok.headers['x-read-bytes-day-remaining']), 3000 - Buffer.byteLength(ok.body));
});

test('once the daily read bytes are spent, GETs are refused with 429', async () => {
  t.clock.set('2026-05-03T10:00:00Z');
  const { token } = await createAccountWithToken(t.app);
  let res = await get(token);
  while (res.statusCode === 200) {
    t.clock.advance(61_000);
    res = await get(token);
  }
  assert.equal(res.statusCode, 429);
  assert.equal(res.json().error.code, 'rate_limited');
  assert.equal(res.headers['x-read-bytes-day-remaining'], '0');
  assert.ok(Number(res.headers['retry-after']) > 0);
});

test('GET /usage reports every read byte served before it, at once', async () => {
  t.clock.set('2026-05-04T10:00:00Z');
  const { token } = await createAccountWithToken(t.app);
  const monitors = await get(token, '/api/v1/monitors');
  const first = await get(token);
  assert.equal(first.json().data.api.read_bytes.used, Buffer.byteLength(monitors.body));
  const second = await get(token);
  assert.equal(second.json().data.api.read_bytes.used, Buffer.byteLength(monitors.body) + Buffer.byteLength(first.body));
});
