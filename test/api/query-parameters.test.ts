import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import { requireQueryDeclaration } from '../../src/http/query-declaration.ts';
import { NoQuery } from '../../src/schemas/common.ts';
import { bearer, createAccountWithToken, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { ADMIN_TOKEN } from '../helpers/test-credentials.ts';
import { TITLE_TARGET } from '../helpers/monitor-api.ts';

// Every operation of the public and the operator API, each with a request that
// is valid but for one unknown query parameter. Bodies pass their schemas, so
// the only thing left to refuse is the parameter.

let t: TestApp;
let token: string;
let countsBefore: { monitors: number; accounts: number };

/** Counted over the whole store, which may hold rows of its own (a moved store, PAGEWATCH_TEST_MOVED_STORE). */
async function counts() {
  const [row] = await t.db.query<{ monitors: number; accounts: number }>(
    'SELECT (SELECT count(*)::int FROM monitors) AS monitors, (SELECT count(*)::int FROM accounts) AS accounts',
  );
  return row!;
}

before(async () => {
  t = await startTestApp();
  ({ token } = await createAccountWithToken(t.app));
  countsBefore = await counts();
});
after(() => t.close());

const id = randomUUID();
const monitorBody = { preview_id: id, targets: [TITLE_TARGET], interval_minutes: 5 };

// [method, path as in openapi.json, body, extra headers]
const PUBLIC: [string, string, unknown?, Record<string, string>?][] = [
  ['get', '/monitors'],
  ['post', '/monitors', monitorBody, { 'idempotency-key': 'query-parameters-1' }],
  ['get', '/monitors/{monitor_id}'],
  ['patch', '/monitors/{monitor_id}', { status: 'paused' }],
  ['delete', '/monitors/{monitor_id}'],
  ['get', '/monitors/{monitor_id}/checks'],
  ['post', '/monitors/{monitor_id}/checks', {}, { 'idempotency-key': 'query-parameters-2' }],
  ['get', '/checks/{check_id}'],
  ['get', '/changes'],
  ['get', '/changes/{change_id}'],
  ['get', '/usage'],
  ['post', '/previews', { url: 'http://127.0.0.1:9/page', load_mode: 'html' }],
  ['post', '/previews/{preview_id}/evaluate', { targets: [TITLE_TARGET] }],
  ['get', '/feed-tokens'],
  ['post', '/feed-tokens', { name: 'reader' }],
  ['delete', '/feed-tokens/{feed_token_id}'],
  ['get', '/channels'],
  ['post', '/channels', { name: 'team', url: 'ntfy://127.0.0.1/alerts' }],
  ['get', '/channels/{channel_id}'],
  ['delete', '/channels/{channel_id}'],
  ['post', '/channels/{channel_id}/test', {}],
  ['get', '/channels/{channel_id}/deliveries'],
  ['get', '/secrets'],
  ['put', '/secrets/{name}', { value: 'a-secret-value' }],
  ['delete', '/secrets/{name}'],
];

const ADMIN: [string, string, unknown?][] = [
  ['post', '/accounts', { email: 'query-parameters@example.com', plan: 'pro' }],
  ['get', '/accounts'],
  ['get', '/accounts/{id}'],
  ['patch', '/accounts/{id}', { plan: 'pro' }],
  ['post', '/accounts/{id}/password-link', {}],
  ['post', '/accounts/{id}/tokens', { name: 'x', scopes: ['usage:read'], expires_in_days: 1 }],
  ['get', '/accounts/{id}/tokens'],
  ['delete', '/tokens/{id}'],
  ['get', '/api-status'],
  ['put', '/api-status', { open: true }],
  ['get', '/health'],
  ['get', '/backup'],
];

function request(
  prefix: string,
  method: string,
  path: string,
  authorization: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  return t.app.inject({
    method: method.toUpperCase() as 'GET',
    // A secret's name is no uuid; every other path parameter is.
    url: `${prefix}${path.replace('{name}', 'a_name').replace(/\{\w+\}/g, id)}?zz_unknown=1`,
    headers: { authorization, ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
}

function assertUnknownParameter(res: { statusCode: number; body: string; json(): unknown }, what: string) {
  assert.equal(res.statusCode, 400, `${what}: ${res.body}`);
  const { error } = res.json() as { error: { code: string; message: string; details: { field: string }[] } };
  assert.equal(error.code, 'unknown_parameter', what);
  assert.match(error.message, /zz_unknown/, what);
  assert.deepEqual(
    error.details.map((d) => d.field),
    ['zz_unknown'],
    what,
  );
}

async function documentedOperations(): Promise<string[]> {
  const doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json<{ paths: Record<string, object> }>();
  return Object.entries(doc.paths).flatMap(([path, methods]) => Object.keys(methods).map((m) => `${m} ${path}`));
}

test('the table lists every operation of the public API', async () => {
  // The Atom feeds, outside /api/v1, take any query: feed readers add their own (openapi.test.ts covers them).
  const documented = (await documentedOperations()).filter((op) => !op.includes(' /admin/v1/') && !op.includes(' /feeds/'));
  assert.deepEqual(documented.sort(), PUBLIC.map(([m, p]) => `${m} ${p}`).sort());
});

test('the table lists every operation of the operator API', async () => {
  const documented = (await documentedOperations()).filter((op) => op.includes(' /admin/v1/'));
  assert.deepEqual(documented.sort(), ADMIN.map(([m, p]) => `${m} /admin/v1${p}`).sort());
});

for (const [method, path, body, headers] of PUBLIC) {
  test(`${method.toUpperCase()} /api/v1${path} refuses an unknown query parameter with 400 unknown_parameter naming it`, async () => {
    assertUnknownParameter(await request('/api/v1', method, path, bearer(token).authorization, body, headers), `${method} ${path}`);
  });
}

test('the OpenAPI document itself refuses an unknown query parameter', async () => {
  assertUnknownParameter(await request('/api/v1', 'get', '/openapi.json', ''), 'openapi.json');
});

for (const [method, path, body] of ADMIN) {
  test(`${method.toUpperCase()} /admin/v1${path} refuses an unknown query parameter with 400 unknown_parameter naming it`, async () => {
    assertUnknownParameter(await request('/admin/v1', method, path, `Bearer ${ADMIN_TOKEN}`, body), `admin ${method} ${path}`);
  });
}

test('nothing was created, changed or deleted by the refused requests', async () => {
  assert.deepEqual(await counts(), countsBefore);
});

test('a route of either API registered without a query declaration stops the app from starting', async () => {
  for (const prefix of ['/api/v1', '/admin/v1']) {
    const app = Fastify();
    app.addHook('onRoute', requireQueryDeclaration(['/api/v1', '/admin/v1']));
    app.get(`${prefix}/declared`, { schema: { querystring: NoQuery } }, async () => ({}));
    assert.throws(() => app.get(`${prefix}/undeclared`, async () => ({})), /declare its query parameters/);
    assert.throws(
      () => app.get(`${prefix}/open`, { schema: { querystring: { type: 'object', properties: {} } } }, async () => ({})),
      /declare its query parameters/,
    );
    app.get('/dashboard-page', async () => ({}));
    await app.close();
  }
});
