import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { bearer, createAccountWithToken, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { ADMIN_TOKEN } from '../helpers/test-credentials.ts';
import { MAX_JSON_DEPTH } from '../../src/http/json-depth.ts';

// Body handling is shared by every route; these requests use the operator API's
// account creation as a body-carrying endpoint.
let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

const post = (payload: string, contentType: string | null = 'application/json') =>
  t.app.inject({
    method: 'POST',
    url: '/admin/v1/accounts',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(contentType ? { 'content-type': contentType } : {}) },
    payload,
  });

test('a body over 16 KiB is 413 payload_too_large', async () => {
  const res = await post(JSON.stringify({ email: 'a@example.com', plan: 'pro', pad: 'x'.repeat(16 * 1024) }));
  assert.equal(res.statusCode, 413);
  assert.equal(res.json().error.code, 'payload_too_large');
});

test('a body that is not JSON by content type is 415', async () => {
  for (const type of ['text/plain', 'application/x-www-form-urlencoded', null]) {
    const res = await post('email=a@example.com', type);
    assert.equal(res.statusCode, 415, String(type));
    assert.equal(res.json().error.code, 'unsupported_media_type');
  }
});

test('malformed JSON is 400 malformed_json', async () => {
  for (const body of ['{"email": ', '', '{"a":1}}']) {
    const res = await post(body);
    assert.equal(res.statusCode, 400, body);
    assert.equal(res.json().error.code, 'malformed_json');
  }
});

test(`JSON nested deeper than ${MAX_JSON_DEPTH} levels is 400 malformed_json on every body-carrying route, even within 16 KiB`, async () => {
  const { token } = await createAccountWithToken(t.app);
  const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);
  for (const body of [
    `{"email": ${deep(8000)}}`,
    deep(8000),
    `{"a": {"b": ${'{"c":'.repeat(MAX_JSON_DEPTH)}1${'}'.repeat(MAX_JSON_DEPTH)}}}`,
  ]) {
    for (const [url, auth] of [
      ['/admin/v1/accounts', `Bearer ${ADMIN_TOKEN}`],
      ['/api/v1/monitors', bearer(token).authorization],
      ['/api/v1/previews', bearer(token).authorization],
    ] as const) {
      const res = await t.app.inject({
        method: 'POST',
        url,
        headers: { authorization: auth, 'content-type': 'application/json' },
        payload: body,
      });
      assert.equal(res.statusCode, 400, `${url} ${body.slice(0, 20)}`);
      assert.equal(res.json().error.code, 'malformed_json');
    }
  }
  const bracketsInAString = await post(JSON.stringify({ email: '['.repeat(2000), plan: 'pro' }));
  assert.equal(bracketsInAString.statusCode, 422, 'brackets inside strings do not count');
});

test('an unknown body field is 400 unknown_field naming the field', async () => {
  const res = await post(JSON.stringify({ email: 'b@example.com', plan: 'pro', colour: 'red' }));
  assert.equal(res.statusCode, 400);
  assert.equal(res.json().error.code, 'unknown_field');
  assert.match(res.json().error.message, /colour/);
  assert.deepEqual(res.json().error.details, [{ field: 'colour', message: 'is not a field of this request' }]);
});

test('well-formed JSON with an invalid value is 422 validation_failed with details', async () => {
  const res = await post(JSON.stringify({ email: 'not-an-email', plan: 'gold' }));
  assert.equal(res.statusCode, 422);
  assert.equal(res.json().error.code, 'validation_failed');
  const fields = res.json().error.details.map((d: { field: string }) => d.field);
  assert.ok(fields.includes('email'));
  assert.ok(fields.includes('plan'));
});

test('a JSON content type with a charset parameter is accepted', async () => {
  const res = await post(JSON.stringify({ email: 'c@example.com', plan: 'pro' }), 'application/json; charset=utf-8');
  assert.equal(res.statusCode, 201);
});

test('server errors are 500 internal_error and never leak internals', async () => {
  const broken = await startTestApp();
  // A store that answers but no longer has what the code expects: a fault of ours, not an outage (503).
  await broken.db.query('ALTER TABLE api_status RENAME COLUMN retry_after_seconds TO retry_after_renamed');
  try {
    const res = await broken.app.inject({
      method: 'GET',
      url: '/admin/v1/api-status',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    assert.equal(res.statusCode, 500);
    assert.equal(res.json().error.code, 'internal_error');
    assert.equal(res.json().error.request_id, res.headers['x-request-id']);
    assert.ok(!/stack|\.ts|closed|PGlite|pg/i.test(res.json().error.message), res.json().error.message);
  } finally {
    await broken.app.close();
  }
});

test('a path segment over 100 characters is 414 uri_too_long, and a bad percent-encoding 400, both in the envelope with the usual headers', async () => {
  for (const [url, status, code] of [
    [`/api/v1/monitors/${'a'.repeat(120)}`, 414, 'uri_too_long'],
    ['/api/v1/monitors/%zz', 400, 'invalid_request'],
    [`/admin/v1/accounts/${'b'.repeat(120)}`, 414, 'uri_too_long'],
  ] as const) {
    const res = await t.app.inject({ method: 'GET', url });
    assert.equal(res.statusCode, status, url);
    assert.equal(res.json().error.code, code, url);
    assert.match(res.headers['x-request-id'] as string, /^[0-9a-f-]{36}$/);
    assert.equal(res.json().error.request_id, res.headers['x-request-id']);
    assert.equal(res.headers['cache-control'], 'no-store');
  }
});

test('validation details are written for people: a bad threshold explains the expected form, a bad kind lists the choices', async () => {
  const { token } = await createAccountWithToken(t.app);
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/v1/monitors',
    headers: { ...bearer(token), 'content-type': 'application/json', 'idempotency-key': 'human-messages-1' },
    payload: {
      preview_id: '00000000-0000-4000-8000-000000000000',
      interval_minutes: 60,
      targets: [
        { id: 'p', kind: 'price', selection: { scope: 'page' }, currency: 'EUR', rule: 'below', threshold: '999,00' },
        { id: 'q', kind: 'colour', selection: { scope: 'page' } },
      ],
    },
  });
  assert.equal(res.statusCode, 422);
  const details = res.json().error.details as { field: string; message: string }[];
  assert.deepEqual(
    details.find((d) => d.field === 'targets[0].threshold'),
    {
      field: 'targets[0].threshold',
      message: 'is not in the expected form (price targets with rule below: dot-decimal amount such as 30.00)',
    },
  );
  assert.deepEqual(
    details.find((d) => d.field === 'targets[1].kind'),
    { field: 'targets[1].kind', message: 'must be one of: "text", "price", "availability", "links"' },
  );
  assert.ok(
    details.every((d) => !/pattern|\^|must match|NOT/.test(d.message)),
    JSON.stringify(details),
  );
  assert.equal(new Set(details.map((d) => `${d.field} ${d.message}`)).size, details.length, 'no message twice');
});
