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

test('every token-protected route appears in the OpenAPI document with its scope', () => {
  const routes = t.app
    .printRoutes({ commonPrefix: false })
    .split('\n')
    .filter((line) => line.includes('api/v1/')); // the dashboard's "/" route makes this a child of "/"
  assert.ok(routes.length > 0);
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      assert.equal(op.security.length, 1, `${method} ${path}`);
      const url = `/api/v1${path.replace(/\{(\w+)\}/g, ':$1')}`;
      const found = t.app.hasRoute({ method: method.toUpperCase() as 'GET', url });
      assert.ok(found, `${method} ${url} documented but not routed`);
    }
  }
  assert.ok(doc.paths['/usage']?.get);
});

test('the committed openapi.json is the generated document', () => {
  const committed = JSON.parse(readFileSync(new URL('../../openapi.json', import.meta.url), 'utf8'));
  assert.deepEqual(committed, doc, 'run `npm run openapi` to regenerate openapi.json');
});
