import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { createOwner, signedIn } from '../helpers/dashboard-client.ts';

// The dashboard's Atom feeds page: the owner makes a feed, sees its address
// once, and revokes it.

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

const feedUrlIn = (body: string) => /id="feed-url" readonly value="([^"]+)"/.exec(body)?.[1];

test('a feed made in the dashboard shows its address once, serves Atom, and is revoked from the list', async () => {
  const { email } = await createOwner(t.app);
  const client = await signedIn(t.app, email);
  assert.match((await client.get('/api-access')).body, /<a href="\/feed-tokens">Atom feed<\/a>/);
  const page = await client.get('/feed-tokens');
  assert.equal(page.statusCode, 200);
  assert.match(page.body, /0 of 10 active feed tokens in use/);

  const created = await client.post('/feed-tokens', { name: 'team reader', label: '', monitor_id: '' });
  assert.equal(created.statusCode, 201);
  const feedUrl = feedUrlIn(created.body);
  assert.ok(feedUrl, 'the feed address is on the page');
  const path = new URL(feedUrl).pathname;
  assert.equal((await t.app.inject({ method: 'GET', url: path })).statusCode, 200);

  const listed = await client.get('/feed-tokens');
  assert.equal(feedUrlIn(listed.body), undefined);
  assert.ok(!listed.body.includes(path), 'the list does not show the address again');
  const id = /action="\/feed-tokens\/([0-9a-f-]{36})\/revoke"/.exec(listed.body)?.[1];
  assert.ok(id);
  const revoked = await client.post(`/feed-tokens/${id}/revoke`, {});
  assert.equal(revoked.statusCode, 303);
  assert.equal(revoked.headers.location, '/feed-tokens?notice=feed-revoked');
  assert.equal((await t.app.inject({ method: 'GET', url: path })).statusCode, 404);
});

test('a feed of a label and a monitor at once is refused with the form again', async () => {
  const { email } = await createOwner(t.app);
  const client = await signedIn(t.app, email);
  await client.get('/feed-tokens');
  const res = await client.post('/feed-tokens', { name: 'x', label: 'shop', monitor_id: '00000000-0000-4000-8000-000000000000' });
  assert.equal(res.statusCode, 422);
  assert.match(res.body, /Choose a label or a monitor, not both/);
});
