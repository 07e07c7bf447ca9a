import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { admin, bearer, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { createOwner, signedIn } from '../helpers/dashboard-client.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

const tokenIn = (body: string) => /id="token-value" readonly value="(pwk_[^"]+)"/.exec(body)?.[1];

test('a token created in the dashboard is shown once, works against /api/v1 and is listed without its secret', async () => {
  const { email } = await createOwner(t.app);
  const client = await signedIn(t.app, email);
  const page = await client.get('/api-access');
  assert.match(page.body, /0 of 5 active tokens in use/);
  for (const scope of ['monitors:read', 'monitors:write', 'changes:read', 'usage:read', 'checks:write'])
    assert.match(page.body, new RegExp(`value="${scope}"`));
  const created = await client.post('/api-access/tokens', { name: 'build server', scopes: ['usage:read', 'monitors:read'], days: '90' });
  assert.equal(created.statusCode, 201);
  const token = tokenIn(created.body);
  assert.ok(token, 'the new token is on the page');
  assert.match(created.body, /shown only this once/);
  assert.match(created.body, /data-copy="token-value"/);
  const usage = await t.app.inject({ method: 'GET', url: '/api/v1/usage', headers: bearer(token) });
  assert.equal(usage.statusCode, 200);
  const forbidden = await t.app.inject({
    method: 'POST',
    url: '/api/v1/previews',
    headers: { ...bearer(token), 'content-type': 'application/json' },
    payload: '{}',
  });
  assert.equal(forbidden.json().error.code, 'insufficient_scope');

  const list = await client.get('/api-access');
  assert.equal(tokenIn(list.body), undefined);
  assert.ok(!list.body.includes(token));
  assert.match(list.body, /build server/);
  assert.match(list.body, /state-valid/);
  assert.match(list.body, /1 of 5 active tokens in use/);
  assert.doesNotMatch(
    list.body,
    /<span class="muted">—<\/span><\/td>\n<td><span class="state state-valid">/,
    'last used is shown after use',
  );
});

test('revoking asks for confirmation, then the API refuses the token', async () => {
  const { email } = await createOwner(t.app);
  const client = await signedIn(t.app, email);
  await client.get('/api-access');
  const token = tokenIn((await client.post('/api-access/tokens', { name: 'to revoke', scopes: 'usage:read', days: '30' })).body)!;
  const id = /href="\/api-access\/tokens\/([0-9a-f-]{36})\/revoke"/.exec((await client.get('/api-access')).body)![1];
  const confirm = await client.get(`/api-access/tokens/${id}/revoke`);
  assert.match(confirm.body, /Revoke token "to revoke"\?/);
  const revoked = await client.post(`/api-access/tokens/${id}/revoke`);
  assert.equal(revoked.statusCode, 303);
  assert.equal(revoked.headers.location, '/api-access?notice=token-revoked');
  assert.match((await client.get('/api-access?notice=token-revoked')).body, /state-revoked/);
  const refused = await t.app.inject({ method: 'GET', url: '/api/v1/usage', headers: bearer(token) });
  assert.equal(refused.statusCode, 401);
});

test("another account's token cannot be revoked from the dashboard", async () => {
  const owner = await createOwner(t.app);
  const stranger = await createOwner(t.app);
  const theirs = await admin(t.app, 'POST', `/accounts/${stranger.accountId}/tokens`, {
    name: 'theirs',
    scopes: ['usage:read'],
    expires_in_days: 30,
  });
  const client = await signedIn(t.app, owner.email);
  await client.get('/api-access');
  assert.equal((await client.get(`/api-access/tokens/${theirs.json().data.id}/revoke`)).statusCode, 404);
  assert.equal((await client.post(`/api-access/tokens/${theirs.json().data.id}/revoke`)).statusCode, 404);
  const usage = await t.app.inject({ method: 'GET', url: '/api/v1/usage', headers: bearer(theirs.json().data.token) });
  assert.equal(usage.statusCode, 200);
});

test('the five-token limit is explained and enforced', async () => {
  const { email } = await createOwner(t.app);
  const client = await signedIn(t.app, email);
  await client.get('/api-access');
  for (let i = 0; i < 5; i++)
    assert.equal((await client.post('/api-access/tokens', { name: `t${i}`, scopes: 'usage:read', days: '30' })).statusCode, 201);
  const page = await client.get('/api-access');
  assert.match(page.body, /Token limit reached/);
  assert.match(page.body, /at most 5 active tokens/);
  assert.doesNotMatch(page.body, /Create a token/);
  const sixth = await client.post('/api-access/tokens', { name: 'sixth', scopes: 'usage:read', days: '30' });
  assert.equal(sixth.statusCode, 409);
  assert.match(sixth.body, /at most 5 active tokens per account/);
});

test('token form input is validated: name, at least one scope, 30/90/365 days', async () => {
  const { email } = await createOwner(t.app);
  const client = await signedIn(t.app, email);
  await client.get('/api-access');
  const cases: [Record<string, string | string[]>, RegExp][] = [
    [{ name: '', scopes: 'usage:read', days: '30' }, /Give the token a name/],
    [{ name: 'x', days: '30' }, /Choose at least one scope/],
    [{ name: 'x', scopes: 'admin:all', days: '30' }, /Choose at least one scope/],
    [{ name: 'x', scopes: 'usage:read', days: '7' }, /30, 90 or 365 days/],
  ];
  for (const [form, message] of cases) {
    const res = await client.post('/api-access/tokens', form);
    assert.equal(res.statusCode, 422);
    assert.match(res.body, message);
  }
});

test('without Pro the owner sees why there is no API access, and existing tokens show as disabled', async () => {
  const { accountId, email } = await createOwner(t.app);
  await admin(t.app, 'POST', `/accounts/${accountId}/tokens`, { name: 'old', scopes: ['usage:read'], expires_in_days: 30 });
  await admin(t.app, 'PATCH', `/accounts/${accountId}`, { plan: 'free' });
  const client = await signedIn(t.app, email);
  const page = await client.get('/api-access');
  assert.match(page.body, /API access needs the Pro plan/);
  assert.match(page.body, /state-disabled/);
  assert.doesNotMatch(page.body, /Create a token/);
  const res = await client.post('/api-access/tokens', { name: 'free', scopes: 'usage:read', days: '30' });
  assert.equal(res.statusCode, 403);
  assert.match(res.body, /API tokens require the Pro plan/);
});

test('token names are escaped on every page', async () => {
  const { email } = await createOwner(t.app);
  const client = await signedIn(t.app, email);
  await client.get('/api-access');
  await client.post('/api-access/tokens', { name: '<script>alert(1)</script>', scopes: 'usage:read', days: '30' });
  const page = await client.get('/api-access');
  assert.ok(!page.body.includes('<script>alert(1)</script>'));
  assert.match(page.body, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
});
