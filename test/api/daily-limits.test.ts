import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { bearer, createAccountWithToken, startTestApp, type TestApp } from '../helpers/test-app.ts';

// A small daily limit (as an operator's plans file would set) keeps these tests fast;
// the pro defaults are asserted in rate-limits.test.ts.
let t: TestApp;
before(async () => {
  t = await startTestApp({ plans: { pro: { requests_per_day: 5 } } });
});
after(() => t.close());

const get = (token: string, url = '/api/v1/usage') => t.app.inject({ method: 'GET', url, headers: bearer(token) });

test('requests beyond the daily limit are 429 with Retry-After until 00:00 UTC', async () => {
  t.clock.set('2026-03-10T23:00:00Z');
  const { token } = await createAccountWithToken(t.app);
  for (let i = 0; i < 5; i++) {
    assert.equal((await get(token)).statusCode, 200);
    t.clock.advance(61_000);
  }
  const res = await get(token);
  assert.equal(res.statusCode, 429);
  assert.equal(res.json().error.code, 'rate_limited');
  assert.equal(Number(res.headers['retry-after']), Math.ceil((Date.parse('2026-03-11T00:00:00Z') - t.clock.now().getTime()) / 1000));
  assert.equal(res.headers['x-ratelimit-day-remaining'], '0');
});

test('the daily counter resets at 00:00 UTC', async () => {
  t.clock.set('2026-04-01T23:50:00Z');
  const { token } = await createAccountWithToken(t.app);
  for (let i = 0; i < 5; i++) {
    await get(token);
    t.clock.advance(61_000);
  }
  assert.equal((await get(token)).statusCode, 429);
  t.clock.set('2026-04-02T00:00:01Z');
  const res = await get(token);
  assert.equal(res.statusCode, 200);
  assert.equal(res.headers['x-ratelimit-day-remaining'], '4');
});
