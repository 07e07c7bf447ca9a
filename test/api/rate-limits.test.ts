import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { bearer, createAccountWithToken, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { DEFAULT_PLANS } from '../../src/domain/plans.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

const usage = (token: string, url = '/api/v1/usage') => t.app.inject({ method: 'GET', url, headers: bearer(token) });

test('the pro plan allows 60 requests per 60-second window and 5,000 per UTC day', () => {
  assert.equal(DEFAULT_PLANS.pro.requests_per_minute, 60);
  assert.equal(DEFAULT_PLANS.pro.requests_per_day, 5000);
  assert.equal(DEFAULT_PLANS.pro.read_bytes_per_day, 100 * 1024 * 1024);
});

test('the 61st request in a window is 429 rate_limited with Retry-After until the window resets', async () => {
  const { token } = await createAccountWithToken(t.app);
  for (let i = 0; i < 60; i++) assert.equal((await usage(token)).statusCode, 200);
  t.clock.advance(20_000);
  const res = await usage(token);
  assert.equal(res.statusCode, 429);
  assert.equal(res.json().error.code, 'rate_limited');
  assert.equal(res.headers['retry-after'], '40');
  assert.equal(res.headers['x-ratelimit-remaining'], '0');
});

test('rate-limit headers count down within the window and name its reset time', async () => {
  const { token } = await createAccountWithToken(t.app);
  const first = await usage(token);
  const second = await usage(token);
  assert.equal(first.headers['x-ratelimit-limit'], '60');
  assert.equal(first.headers['x-ratelimit-remaining'], '59');
  assert.equal(second.headers['x-ratelimit-remaining'], '58');
  assert.equal(first.headers['x-ratelimit-reset'], String(Math.ceil(t.clock.now().getTime() / 1000) + 60));
  assert.equal(second.headers['x-ratelimit-day-limit'], '5000');
  assert.equal(second.headers['x-ratelimit-day-remaining'], '4998');
});

test('a new window begins with the first request after the previous window expired', async () => {
  const { token } = await createAccountWithToken(t.app);
  for (let i = 0; i < 60; i++) await usage(token);
  t.clock.advance(60_000);
  t.clock.advance(15_000);
  const res = await usage(token);
  assert.equal(res.statusCode, 200);
  assert.equal(res.headers['x-ratelimit-remaining'], '59');
  assert.equal(res.headers['x-ratelimit-reset'], String(Math.ceil(t.clock.now().getTime() / 1000) + 60));
});

test('all tokens of an account share its limits', async () => {
  const { token, accountId } = await createAccountWithToken(t.app);
  const { admin } = await import('../helpers/test-app.ts');
  const second = await admin(t.app, 'POST', `/accounts/${accountId}/tokens`, { name: 'b', scopes: ['usage:read'], expires_in_days: 5 });
  const other = second.json().data.token as string;
  for (let i = 0; i < 30; i++) await usage(token);
  for (let i = 0; i < 30; i++) assert.equal((await usage(other)).statusCode, 200);
  assert.equal((await usage(token)).statusCode, 429);
});

test('rejected input of an authenticated, authorised request is counted', async () => {
  const { token } = await createAccountWithToken(t.app);
  const bad = await usage(token, '/api/v1/usage?unknown=1');
  assert.equal(bad.statusCode, 400);
  assert.equal(bad.headers['x-ratelimit-remaining'], '59');
  const next = await usage(token);
  assert.equal(next.headers['x-ratelimit-remaining'], '58');
});

test('100 parallel requests of one account: exactly 60 pass', async () => {
  const { token } = await createAccountWithToken(t.app);
  const responses = await Promise.all(Array.from({ length: 100 }, () => usage(token)));
  const statuses = responses.map((r) => r.statusCode);
  assert.equal(statuses.filter((s) => s === 200).length, 60);
  assert.equal(statuses.filter((s) => s === 429).length, 40);
});

test('a refused scope is not counted against the limits but shows them', async () => {
  const { token } = await createAccountWithToken(t.app, { scopes: ['monitors:read'] });
  const res = await usage(token);
  assert.equal(res.statusCode, 403);
  assert.equal(res.headers['x-ratelimit-remaining'], '60');
});
