import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { admin, bearer, createAccountWithToken, startTestApp, type TestApp } from '../helpers/test-app.ts';

// The seven limit headers are on every response to an identified account,
// whatever the answer; a 401 identifies no account and carries none.

const LIMIT_HEADERS = [
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'x-ratelimit-day-limit',
  'x-ratelimit-day-remaining',
  'x-read-bytes-day-limit',
  'x-read-bytes-day-remaining',
];

let t: TestApp;
let token: string;
before(async () => {
  t = await startTestApp();
  ({ token } = await createAccountWithToken(t.app));
});
after(() => t.close());

type Injected = Awaited<ReturnType<TestApp['app']['inject']>>;

function assertLimitHeaders(res: Injected, status: number, code: string | null) {
  assert.equal(res.statusCode, status, res.body);
  if (code) assert.equal(res.json<{ error: { code: string } }>().error.code, code);
  for (const name of LIMIT_HEADERS) assert.match(String(res.headers[name]), /^\d+$/, `${name} on the ${status}`);
}

const json = { 'content-type': 'application/json' };

const ANSWERS: [string, number, string | null, () => Promise<Injected>][] = [
  ['a success', 200, null, () => t.app.inject({ method: 'GET', url: '/api/v1/usage', headers: bearer(token) })],
  [
    'an unknown query parameter',
    400,
    'unknown_parameter',
    () => t.app.inject({ method: 'GET', url: '/api/v1/usage?x=1', headers: bearer(token) }),
  ],
  [
    'malformed JSON',
    400,
    'malformed_json',
    () => t.app.inject({ method: 'POST', url: '/api/v1/previews', headers: { ...bearer(token), ...json }, payload: '{' }),
  ],
  [
    'a body over 16 KiB',
    413,
    'payload_too_large',
    () =>
      t.app.inject({
        method: 'POST',
        url: '/api/v1/previews',
        headers: { ...bearer(token), ...json },
        payload: JSON.stringify({ url: 'x'.repeat(17_000) }),
      }),
  ],
  [
    'a body that is not JSON',
    415,
    'unsupported_media_type',
    () =>
      t.app.inject({ method: 'POST', url: '/api/v1/previews', headers: { ...bearer(token), 'content-type': 'text/plain' }, payload: 'x' }),
  ],
  [
    'a missing resource',
    404,
    'not_found',
    () => t.app.inject({ method: 'GET', url: `/api/v1/monitors/${randomUUID()}`, headers: bearer(token) }),
  ],
  ['an unknown path', 404, 'not_found', () => t.app.inject({ method: 'GET', url: '/api/v1/nowhere', headers: bearer(token) })],
  [
    'an invalid configuration',
    422,
    'validation_failed',
    () =>
      t.app.inject({
        method: 'POST',
        url: '/api/v1/previews',
        headers: { ...bearer(token), ...json },
        payload: JSON.stringify({ url: 'not a url', load_mode: 'html' }),
      }),
  ],
];

for (const [what, status, code, send] of ANSWERS) {
  test(`${what} (${status}) carries the seven limit headers`, async () => {
    assertLimitHeaders(await send(), status, code);
  });
}

test('a token without the scope (403 insufficient_scope) carries the seven limit headers', async () => {
  const narrow = await createAccountWithToken(t.app, { scopes: ['usage:read'] });
  assertLimitHeaders(
    await t.app.inject({ method: 'GET', url: '/api/v1/monitors', headers: bearer(narrow.token) }),
    403,
    'insufficient_scope',
  );
});

test('an account off the Pro plan (403 pro_required) carries the seven limit headers', async () => {
  const free = await createAccountWithToken(t.app, { plan: 'free' });
  assertLimitHeaders(await t.app.inject({ method: 'GET', url: '/api/v1/usage', headers: bearer(free.token) }), 403, 'pro_required');
});

test("the closed API's 503 to a valid token carries the seven limit headers; to an invalid one, none", async () => {
  assert.equal((await admin(t.app, 'PUT', '/api-status', { open: false, retry_after_seconds: 120 })).statusCode, 200);
  try {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/usage', headers: bearer(token) });
    assertLimitHeaders(res, 503, 'unavailable');
    assert.equal(res.headers['retry-after'], '120');
    const unknown = await t.app.inject({ method: 'GET', url: '/api/v1/usage', headers: bearer('pwk_not_a_token') });
    assert.equal(unknown.statusCode, 503);
    for (const name of LIMIT_HEADERS) assert.equal(unknown.headers[name], undefined, name);
  } finally {
    await admin(t.app, 'PUT', '/api-status', { open: true });
  }
  const after = await t.app.inject({ method: 'GET', url: '/api/v1/usage', headers: bearer(token) });
  assert.equal(after.statusCode, 200);
});

test('a 401 identifies no account and carries no limit headers', async () => {
  const res = await t.app.inject({ method: 'GET', url: '/api/v1/usage', headers: bearer('pwk_not_a_token') });
  assert.equal(res.statusCode, 401);
  for (const name of LIMIT_HEADERS) assert.equal(res.headers[name], undefined, name);
});
