import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';

let t: TestApp;
let doc: { openapi: string; info: { version: string }; paths: Record<string, Record<string, { security: unknown[]; responses: object }>> };
before(async () => {
  t = await startTestApp();
  const res = await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
  assert.equal(res.statusCode, 200);
  doc = res.json();
});
after(() => t.close());

test('the OpenAPI document is 3.1 with description-document version 1.0.0, served without a token', () => {
  assert.equal(doc.openapi, '3.1.0');
  assert.equal(doc.info.version, '1.0.0');
});

// The specification's endpoint table, with the scope each needs.
const SPEC_ENDPOINTS: [string, string, string][] = [
  ['get', '/monitors', 'monitors:read'],
  ['post', '/monitors', 'monitors:write'],
  ['get', '/monitors/{monitor_id}', 'monitors:read'],
  ['patch', '/monitors/{monitor_id}', 'monitors:write'],
  ['delete', '/monitors/{monitor_id}', 'monitors:write'],
  ['get', '/changes', 'changes:read'],
  ['get', '/changes/{change_id}', 'changes:read'],
  ['get', '/usage', 'usage:read'],
  ['post', '/monitors/{monitor_id}/checks', 'checks:write'],
  ['get', '/checks/{check_id}', 'checks:write'],
  ['post', '/previews', 'monitors:write'],
  ['post', '/previews/{preview_id}/evaluate', 'monitors:write'],
];

// Endpoints beyond the specification (docs/guide.md: "Beyond the specification").
const EXTENSION_ENDPOINTS: [string, string, string][] = [
  ['get', '/monitors/{monitor_id}/checks', 'monitors:read'],
  ['post', '/feed-tokens', 'feeds:write'],
  ['get', '/feed-tokens', 'feeds:read'],
  ['delete', '/feed-tokens/{feed_token_id}', 'feeds:write'],
  ['post', '/channels', 'channels:write'],
  ['get', '/channels', 'channels:read'],
  ['get', '/channels/{channel_id}', 'channels:read'],
  ['delete', '/channels/{channel_id}', 'channels:write'],
  ['post', '/channels/{channel_id}/test', 'channels:write'],
  ['get', '/channels/{channel_id}/deliveries', 'channels:read'],
  ['put', '/secrets/{name}', 'secrets:write'],
  ['get', '/secrets', 'secrets:write'],
  ['delete', '/secrets/{name}', 'secrets:write'],
];
const ENDPOINTS = [...SPEC_ENDPOINTS, ...EXTENSION_ENDPOINTS];

test('every endpoint of the specification, and each extension, is documented with its scope', () => {
  for (const [method, path, scope] of ENDPOINTS) {
    const op = doc.paths[path]?.[method];
    assert.ok(op, `${method} ${path} missing from the document`);
    assert.deepEqual(op.security, [{ bearerAuth: [scope] }], `${method} ${path}`);
  }
});

// The operator API (DESIGN §6), written whole and resolved against the server's root.
const OPERATOR_ENDPOINTS: [string, string][] = [
  ['post', '/admin/v1/accounts'],
  ['get', '/admin/v1/accounts'],
  ['get', '/admin/v1/accounts/{id}'],
  ['patch', '/admin/v1/accounts/{id}'],
  ['post', '/admin/v1/accounts/{id}/password-link'],
  ['post', '/admin/v1/accounts/{id}/tokens'],
  ['get', '/admin/v1/accounts/{id}/tokens'],
  ['delete', '/admin/v1/tokens/{id}'],
  ['get', '/admin/v1/api-status'],
  ['put', '/admin/v1/api-status'],
  ['get', '/admin/v1/health'],
  ['get', '/admin/v1/backup'],
];
const isOperatorPath = (path: string) => path.startsWith('/admin/v1/');
// Atom feeds (DESIGN §8 Feeds), outside /api/v1: the feed token in the path is the credential.
const FEED_ENDPOINTS = [
  '/feeds/{token}/changes.atom',
  '/feeds/{token}/labels/{label}/changes.atom',
  '/feeds/{token}/monitors/{monitor_id}/changes.atom',
];
const isFeedPath = (path: string) => path.startsWith('/feeds/');

test('every documented operation is routed, and nothing else is documented', () => {
  const documented = Object.entries(doc.paths)
    .filter(([path]) => !isOperatorPath(path) && !isFeedPath(path))
    .flatMap(([path, methods]) => Object.keys(methods).map((m) => `${m} ${path}`));
  assert.deepEqual(documented.sort(), ENDPOINTS.map(([m, p]) => `${m} ${p}`).sort());
  for (const [method, path] of ENDPOINTS) {
    const url = `/api/v1${path.replace(/\{(\w+)\}/g, ':$1')}`;
    assert.ok(t.app.hasRoute({ method: method.toUpperCase(), url }), `${method} ${url} documented but not routed`);
  }
});

test('the operator API is documented, whole, with the operator token and tag, and routed', () => {
  const documented = Object.entries(doc.paths)
    .filter(([path]) => isOperatorPath(path))
    .flatMap(([path, methods]) => Object.keys(methods).map((m) => `${m} ${path}`));
  assert.deepEqual(documented.sort(), OPERATOR_ENDPOINTS.map(([m, p]) => `${m} ${p}`).sort());
  for (const [method, path] of OPERATOR_ENDPOINTS) {
    const op = doc.paths[path]![method] as unknown as { security: unknown; servers: unknown; tags: string[]; operationId: string };
    assert.deepEqual(op.security, [{ operatorAuth: [] }], `${method} ${path}`);
    assert.deepEqual(op.servers, [{ url: '/' }], `${method} ${path}: resolved against the root, not /api/v1`);
    assert.deepEqual(op.tags, ['operator'], `${method} ${path}`);
    assert.match(op.operationId, /^operator[A-Z]/, `${method} ${path}`);
    assert.ok(t.app.hasRoute({ method: method.toUpperCase(), url: path.replace(/\{(\w+)\}/g, ':$1') }), `${method} ${path} not routed`);
  }
});

test('the Atom feeds are documented at the server’s root, with no bearer token, as Atom with ETag and 304, and routed', () => {
  assert.deepEqual(Object.keys(doc.paths).filter(isFeedPath).sort(), [...FEED_ENDPOINTS].sort());
  for (const path of FEED_ENDPOINTS) {
    const op = doc.paths[path]!.get as unknown as {
      security: unknown;
      servers: unknown;
      tags: string[];
      parameters: { name: string; in: string }[];
      responses: Record<string, { description: string; content?: Record<string, unknown>; headers?: Record<string, unknown> }>;
    };
    assert.deepEqual(op.security, [], `${path}: the token is in the URL`);
    assert.deepEqual(op.servers, [{ url: '/' }], `${path}: resolved against the root, not /api/v1`);
    assert.deepEqual(op.tags, ['feeds']);
    assert.ok(
      op.parameters.some((p) => p.name === 'If-None-Match' && p.in === 'header'),
      path,
    );
    assert.deepEqual(Object.keys(op.responses['200']!.content!), ['application/atom+xml']);
    assert.ok(op.responses['200']!.headers!.ETag, path);
    assert.ok(op.responses['304'], path);
    const errors: [string, string][] = [
      ['403', 'pro_required'],
      ['404', 'not_found'],
      ['429', 'rate_limited'],
      ['503', 'busy'],
    ];
    for (const [status, code] of errors) {
      assert.ok(op.responses[status]!.description.split(': ')[1]!.split(', ').includes(code), `${path} ${status} ${code}`);
    }
    assert.ok(t.app.hasRoute({ method: 'GET', url: path.replace(/\{(\w+)\}/g, ':$1') }), `${path} not routed`);
  }
});

test('the committed openapi.json is the generated document', () => {
  const committed = JSON.parse(readFileSync(new URL('../../openapi.json', import.meta.url), 'utf8'));
  assert.deepEqual(committed, doc, 'run `npm run openapi` to regenerate openapi.json');
});

test('each operation documents the error statuses and codes it can answer', () => {
  const codes = (path: string, method: string, status: string) =>
    ((doc.paths[path]?.[method]?.responses as Record<string, { description: string }>)[status]?.description ?? '')
      .split(': ')[1]
      ?.split(', ') ?? [];
  assert.deepEqual(codes('/monitors', 'post', '409').sort(), [
    'allowance_exhausted',
    'idempotency_key_reused',
    'idempotency_request_in_progress',
    'monitor_exists',
  ]);
  assert.deepEqual(codes('/monitors/{monitor_id}', 'patch', '409'), ['version_conflict']);
  for (const [path, method] of [
    ['/monitors', 'post'],
    ['/previews', 'post'],
    ['/previews/{preview_id}/evaluate', 'post'],
    ['/monitors/{monitor_id}', 'patch'],
  ]) {
    assert.deepEqual(codes(path!, method!, '413'), ['payload_too_large'], `${method} ${path}`);
    assert.deepEqual(codes(path!, method!, '415'), ['unsupported_media_type'], `${method} ${path}`);
    assert.ok(codes(path!, method!, '422').includes('validation_failed'), `${method} ${path}`);
  }
  assert.deepEqual(codes('/previews', 'post', '503').sort(), [
    'busy',
    'renderer_busy',
    'storage_unavailable',
    'store_unavailable',
    'unavailable',
  ]);
  assert.equal(codes('/usage', 'get', '404').length, 0, 'no path parameter, no 404');
});
