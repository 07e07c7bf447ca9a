import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { bearer, createAccountWithToken, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.ts';
import { createMonitorFor, patchMonitor } from '../helpers/monitor-api.ts';

let t: TestApp;
let site: FixtureServer;
let n = 0;
const page = () => `${site.url}/shop/espresso.html?l=${++n}`;
before(async () => {
  t = await startTestApp({
    plans: { pro: { preview_spacing_seconds: 0, previews_per_day: 1000, previews_per_month: 1000, requests_per_minute: 10000 } },
  });
  site = await startFixtureServer();
});
after(async () => {
  await t.close();
  await site.close();
});

const list = (token: string, query = '') => t.app.inject({ method: 'GET', url: `/api/v1/monitors${query}`, headers: bearer(token) });

async function traverse(token: string, query: string): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const res = await list(token, `${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    assert.equal(res.statusCode, 200, res.body);
    ids.push(...res.json().data.map((m: { id: string }) => m.id));
    cursor = res.json().meta.next_cursor;
  } while (cursor);
  return ids;
}

test('lists are newest first, 20 by default, and end with next_cursor null', async () => {
  const { token } = await createAccountWithToken(t.app);
  const created = [];
  for (let i = 0; i < 3; i++) created.push(await createMonitorFor(t.app, token, page()));
  const res = await list(token);
  assert.deepEqual(
    res.json().data.map((m: { id: string }) => m.id),
    created.reverse(),
  );
  assert.equal(res.json().meta.next_cursor, null);
});

test('traversal with next_cursor visits every monitor once, even with ties in creation time', async () => {
  const { token } = await createAccountWithToken(t.app);
  const created = [];
  for (let i = 0; i < 7; i++) created.push(await createMonitorFor(t.app, token, page()));
  assert.deepEqual(await traverse(token, '?limit=2'), [...created].reverse());
});

test('monitors created between pages cause no duplicates or gaps', async () => {
  const { token } = await createAccountWithToken(t.app);
  const created = [];
  for (let i = 0; i < 4; i++) created.push(await createMonitorFor(t.app, token, page()));
  const first = await list(token, '?limit=2');
  for (let i = 0; i < 2; i++) await createMonitorFor(t.app, token, page());
  const second = await list(token, `?limit=2&cursor=${encodeURIComponent(first.json().meta.next_cursor)}`);
  const seen = [...first.json().data, ...second.json().data].map((m: { id: string }) => m.id);
  assert.deepEqual(seen, [...created].reverse());
});

test('status filters the list', async () => {
  const { token } = await createAccountWithToken(t.app);
  const a = await createMonitorFor(t.app, token, page());
  const b = await createMonitorFor(t.app, token, page());
  await patchMonitor(t.app, token, a, { status: 'paused' });
  assert.deepEqual(
    (await list(token, '?status=paused')).json().data.map((m: { id: string }) => m.id),
    [a],
  );
  assert.deepEqual(
    (await list(token, '?status=active')).json().data.map((m: { id: string }) => m.id),
    [b],
  );
});

test('label filters the list to monitors carrying exactly that label, and traversal keeps the filter', async () => {
  const { token } = await createAccountWithToken(t.app);
  const headers = { ...bearer(token), 'content-type': 'application/json' };
  const shop = [
    await createMonitorFor(t.app, token, page()),
    await createMonitorFor(t.app, token, page()),
    await createMonitorFor(t.app, token, page()),
  ];
  const other = await createMonitorFor(t.app, token, page());
  for (const id of shop)
    await t.app.inject({ method: 'PATCH', url: `/api/v1/monitors/${id}`, headers, payload: { labels: ['shop', 'daily'] } });
  await t.app.inject({ method: 'PATCH', url: `/api/v1/monitors/${other}`, headers, payload: { labels: ['shopping'] } });
  assert.deepEqual(await traverse(token, '?limit=2&label=shop'), [...shop].reverse());
  assert.deepEqual(await traverse(token, '?label=shopping'), [other]);
  assert.deepEqual(await traverse(token, '?label=nothing'), []);
  const mixed = await list(
    token,
    `?label=daily&cursor=${encodeURIComponent((await list(token, '?limit=1&label=shop')).json().meta.next_cursor)}`,
  );
  assert.equal(mixed.statusCode, 400, 'a cursor is bound to its label filter');
  assert.equal(mixed.json().error.code, 'malformed_cursor');
});

test('a tampered cursor, or one made for other filters, is 400 malformed_cursor', async () => {
  const { token } = await createAccountWithToken(t.app);
  for (let i = 0; i < 3; i++) await createMonitorFor(t.app, token, page());
  const cursor = (await list(token, '?limit=1')).json().meta.next_cursor as string;
  const flipped = cursor.slice(0, 5) + (cursor[5] === 'A' ? 'B' : 'A') + cursor.slice(6);
  for (const query of [
    `?limit=1&cursor=${encodeURIComponent(flipped)}`,
    `?limit=1&status=active&cursor=${encodeURIComponent(cursor)}`,
    '?cursor=garbage',
    `?cursor=${'a'.repeat(513)}`,
  ]) {
    const res = await list(token, query);
    assert.equal(res.statusCode, 400, query);
    assert.equal(res.json().error.code, 'malformed_cursor', query);
  }
});

test('out-of-range or wrong query values are 400 invalid_request; unknown parameters 400 unknown_parameter', async () => {
  const { token } = await createAccountWithToken(t.app);
  for (const query of ['?limit=0', '?limit=101', '?limit=ten', '?status=gone']) {
    const res = await list(token, query);
    assert.equal(res.statusCode, 400, query);
    assert.equal(res.json().error.code, 'invalid_request', query);
  }
  const unknown = await list(token, '?sort=asc');
  assert.equal(unknown.json().error.code, 'unknown_parameter');
});

test("lists never show another account's monitors", async () => {
  const owner = await createAccountWithToken(t.app);
  const other = await createAccountWithToken(t.app);
  await createMonitorFor(t.app, owner.token, page());
  assert.deepEqual((await list(other.token)).json().data, []);
});
