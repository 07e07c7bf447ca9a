import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { bearer, createAccountWithToken, startTestApp, type TestApp } from '../helpers/test-app.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

test('/healthz answers 200 without a token (liveness)', async () => {
  const res = await t.app.inject({ method: 'GET', url: '/healthz' });
  assert.equal(res.statusCode, 200);
  assert.equal(res.json().data.ok, true);
});

test('/readyz checks the store', async () => {
  const res = await t.app.inject({ method: 'GET', url: '/readyz' });
  assert.equal(res.statusCode, 200);
  assert.equal(res.json().data.store, t.db.kind);
});

test('/readyz is 503 when the store cannot answer', async () => {
  const broken = await startTestApp();
  await broken.db.close();
  try {
    const res = await broken.app.inject({ method: 'GET', url: '/readyz' });
    assert.equal(res.statusCode, 503);
    assert.equal(res.json().data.ok, false);
  } finally {
    await broken.app.close();
  }
});

test('/metrics counts requests by route pattern and status in Prometheus text format', async () => {
  const { token } = await createAccountWithToken(t.app);
  await t.app.inject({ method: 'GET', url: '/api/v1/usage', headers: bearer(token) });
  await t.app.inject({ method: 'GET', url: '/api/v1/usage' });
  const res = await t.app.inject({ method: 'GET', url: '/metrics' });
  assert.equal(res.statusCode, 200);
  assert.match(String(res.headers['content-type']), /^text\/plain/);
  assert.match(res.body, /pagewatch_http_requests_total\{method="GET",route="\/api\/v1\/usage",status="200"\} 1/);
  assert.match(res.body, /pagewatch_http_requests_total\{method="GET",route="\/api\/v1\/usage",status="401"\} 1/);
  assert.match(res.body, /pagewatch_checks_total/);
  assert.match(res.body, /pagewatch_notification_deliveries_total/);
});
