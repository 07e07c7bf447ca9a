import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { parseFeed } from '@rowanmanning/feed-parser';
import type { SteppedEngine } from '../../src/engine/scheduler.ts';
import { bearer, createAccountWithToken, type TestApp } from '../helpers/test-app.ts';
import type { FixtureServer } from '../helpers/fixture-server.ts';
import { useMonitoringWorld } from '../helpers/monitoring-world.ts';
import { extractionJobsSent } from '../helpers/extraction-jobs-sent.ts';
import { watchPage } from '../helpers/watched-page.ts';

const READS_PER_HOUR = 12;
let t: TestApp, site: FixtureServer, engine: SteppedEngine;
useMonitoringWorld({ plans: { pro: { feed_reads_per_hour: READS_PER_HOUR } } }, (w) => ({ t, site, engine } = w));

const FEED_SCOPES = ['feeds:read', 'feeds:write'];

async function feedToken(apiToken: string, body: Record<string, unknown> = {}) {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/v1/feed-tokens',
    headers: { ...bearer(apiToken), 'content-type': 'application/json' },
    payload: JSON.stringify({ name: 'reader', ...body }),
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().data as { id: string; token: string; feed_url: string };
}

function readFeed(path: string, headers: Record<string, string> = {}) {
  return t.app.inject({ method: 'GET', url: path, headers });
}

const feedPath = (secret: string, variant = '') => `/feeds/${secret}${variant}/changes.atom`;

interface AtomJson {
  feed: {
    id: string;
    title: unknown;
    updated: string;
    author: { name: string };
    link: unknown;
    entry?: { id: string; title: unknown; updated: string; content: { '#text': string; '@_type': string } }[];
  };
}

/** The document checked as Atom (RFC 4287): well-formed, the feed's and every entry's required elements, read by a feed parser. */
function validAtom(xml: string) {
  assert.equal(XMLValidator.validate(xml), true, 'well-formed XML');
  const json = new XMLParser({ ignoreAttributes: false, isArray: (name) => name === 'entry' }).parse(xml) as AtomJson;
  const feed = json.feed;
  assert.ok(feed, 'the root element is feed');
  assert.ok(feed.id && feed.title !== undefined && feed.updated && feed.author.name, 'feed id, title, updated, author');
  for (const entry of feed.entry ?? []) {
    assert.match(entry.id, /^urn:uuid:[0-9a-f-]{36}$/);
    assert.ok(!Number.isNaN(Date.parse(entry.updated)), 'entry updated is a date');
    assert.ok(entry.title !== undefined && entry.content['@_type'] === 'text');
  }
  return { json, parsed: parseFeed(xml) };
}

/** An account with a feed token and a monitor whose title changed Duo → A → B. */
async function accountWithChanges() {
  const account = await createAccountWithToken(t.app, { scopes: [...FEED_SCOPES, 'changes:read'] });
  const page = await watchPage(t, site, engine, { accountId: account.accountId });
  await page.check();
  for (const title of ['A', 'B']) await page.check({ title });
  return { ...account, page, feed: await feedToken(account.token) };
}

test('the feed is valid Atom: the changes newest first, with urn:uuid ids of the changes, updated times and the diff as text', async () => {
  const { token, feed } = await accountWithChanges();
  const res = await readFeed(feedPath(feed.token));
  assert.equal(res.statusCode, 200, res.body);
  assert.match(String(res.headers['content-type']), /^application\/atom\+xml/);
  const { parsed } = validAtom(res.body);
  const changes = (await t.app.inject({ method: 'GET', url: '/api/v1/changes', headers: bearer(token) })).json().data as {
    id: string;
    detected_at: string;
  }[];
  assert.deepEqual(
    parsed.items.map((item) => item.id),
    changes.map((c) => `urn:uuid:${c.id}`),
  );
  assert.deepEqual(
    parsed.items.map((item) => item.updated?.toISOString()),
    changes.map((c) => c.detected_at),
  );
  assert.match(parsed.items[0]!.content ?? '', /-A\n\+B/);
});

test('a feed reader gets 304 while nothing changed and sees the new change afterwards', async () => {
  const { page, feed } = await accountWithChanges();
  const first = await readFeed(feedPath(feed.token));
  const etag = String(first.headers.etag);
  assert.match(etag, /^"[A-Za-z0-9_-]+"$/);
  assert.equal(first.headers['cache-control'], 'private, no-cache');
  const unchanged = await readFeed(feedPath(feed.token), { 'if-none-match': etag });
  assert.equal(unchanged.statusCode, 304);
  assert.equal(unchanged.body, '');
  await page.check({ title: 'C' });
  const changed = await readFeed(feedPath(feed.token), { 'if-none-match': etag });
  assert.equal(changed.statusCode, 200);
  assert.notEqual(changed.headers.etag, etag);
  const { parsed } = validAtom(changed.body);
  assert.equal(parsed.items.length, 3);
  assert.match(parsed.items[0]!.title ?? '', /B → C/);
});

test('hostile page text cannot break the XML: it is escaped text, and characters XML cannot carry are replaced', async () => {
  const account = await createAccountWithToken(t.app, { scopes: FEED_SCOPES });
  const page = await watchPage(t, site, engine, { accountId: account.accountId });
  await page.check();
  const hostile = '&lt;/content&gt;&lt;/entry&gt;&lt;script&gt;alert(1)&lt;/script&gt; ]]&gt; &lt;![CDATA[ x &amp;amp; &#1;&#8;';
  await page.check({ title: hostile });
  const res = await readFeed(feedPath((await feedToken(account.token)).token));
  const { json, parsed } = validAtom(res.body);
  assert.equal(json.feed.entry?.length, 1);
  const content = json.feed.entry[0]!.content['#text'];
  assert.ok(content.includes('+</content></entry><script>alert(1)</script> ]]> <![CDATA[ x &amp; \uFFFD\uFFFD'), content);
  assert.ok(parsed.items[0]!.content?.includes('<script>alert(1)</script>'), 'a feed reader sees the text, not markup');
  assert.doesNotMatch(res.body, /<script>/);
});

test('a label token shows only monitors with that label; the monitor variant only that monitor', async () => {
  const account = await createAccountWithToken(t.app, { scopes: FEED_SCOPES });
  const shop = await watchPage(t, site, engine, { accountId: account.accountId });
  await t.db.query(`UPDATE monitors SET labels = '["shop"]' WHERE id = $1`, [shop.monitorId]);
  await shop.check();
  await shop.check({ title: 'Shop changed' });
  const blog = await watchPage(t, site, engine, { accountId: account.accountId });
  await blog.check();
  await blog.check({ title: 'Blog changed' });

  const labelled = await feedToken(account.token, { label: 'shop' });
  const titles = async (path: string) => parseFeed((await readFeed(path)).body).items.map((item) => item.title);
  assert.deepEqual(await titles(feedPath(labelled.token)), [`${shop.url} · title: Espresso Duo → Shop changed`]);
  const whole = await feedToken(account.token);
  assert.equal((await titles(feedPath(whole.token))).length, 2);
  assert.deepEqual(await titles(feedPath(whole.token, `/monitors/${blog.monitorId}`)), [
    `${blog.url} · title: Espresso Duo → Blog changed`,
  ]);
  assert.deepEqual(await titles(feedPath(whole.token, '/labels/shop')), [`${shop.url} · title: Espresso Duo → Shop changed`]);
  assert.deepEqual(await titles(feedPath(labelled.token, `/monitors/${blog.monitorId}`)), []);
});

test('a monitor token shows that monitor only, and a monitor of another account is refused when the token is made', async () => {
  const account = await createAccountWithToken(t.app, { scopes: FEED_SCOPES });
  const mine = await watchPage(t, site, engine, { accountId: account.accountId });
  await mine.check();
  await mine.check({ title: 'Mine' });
  const other = await createAccountWithToken(t.app, { scopes: FEED_SCOPES });
  const theirs = await watchPage(t, site, engine, { accountId: other.accountId });
  const monitorFeed = await feedToken(account.token, { monitor_id: mine.monitorId });
  assert.equal(parseFeed((await readFeed(feedPath(monitorFeed.token))).body).items.length, 1);
  const refused = await t.app.inject({
    method: 'POST',
    url: '/api/v1/feed-tokens',
    headers: { ...bearer(account.token), 'content-type': 'application/json' },
    payload: JSON.stringify({ name: 'x', monitor_id: theirs.monitorId }),
  });
  assert.equal(refused.statusCode, 422);
  assert.equal(refused.json().error.code, 'validation_failed');
});

test('feed tokens are listed without their secret and a revoked token’s feed is 404', async () => {
  const account = await createAccountWithToken(t.app, { scopes: FEED_SCOPES });
  const feed = await feedToken(account.token);
  assert.equal((await readFeed(feedPath(feed.token))).statusCode, 200);
  const revoke = await t.app.inject({ method: 'DELETE', url: `/api/v1/feed-tokens/${feed.id}`, headers: bearer(account.token) });
  assert.equal(revoke.statusCode, 204);
  const gone = await readFeed(feedPath(feed.token));
  assert.equal(gone.statusCode, 404);
  assert.equal(gone.json().error.code, 'not_found');
  assert.equal(gone.headers['cache-control'], 'no-store');
  const list = await t.app.inject({ method: 'GET', url: '/api/v1/feed-tokens', headers: bearer(account.token) });
  assert.equal(list.statusCode, 200);
  assert.deepEqual(
    list.json().data.map((f: { id: string; state: string; hint: string }) => [f.id, f.state, f.hint]),
    [[feed.id, 'revoked', feed.token.slice(0, 8)]],
  );
  assert.ok(!list.body.includes(feed.token));
});

test('only the SHA-256 of a feed token is stored', async () => {
  const account = await createAccountWithToken(t.app, { scopes: FEED_SCOPES });
  const feed = await feedToken(account.token);
  assert.match(feed.token, /^pwf_[A-Za-z0-9_-]{43}$/);
  const rows = await t.db.query<Record<string, unknown>>('SELECT * FROM feed_tokens WHERE id = $1', [feed.id]);
  assert.equal(rows[0]!.token_hash, createHash('sha256').update(feed.token).digest('hex'));
  assert.ok(!JSON.stringify(rows).includes(feed.token));
});

test('feed tokens need the feeds:write scope to be made', async () => {
  const account = await createAccountWithToken(t.app, { scopes: ['changes:read'] });
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/v1/feed-tokens',
    headers: { ...bearer(account.token), 'content-type': 'application/json' },
    payload: JSON.stringify({ name: 'x' }),
  });
  assert.equal(res.statusCode, 403);
  assert.equal(res.json().error.code, 'insufficient_scope');
});

test('a feed token is read at most the plan’s reads per hour; then 429 with Retry-After until the hour is over', async () => {
  const account = await createAccountWithToken(t.app, { scopes: FEED_SCOPES });
  const feed = await feedToken(account.token);
  for (let i = 0; i < READS_PER_HOUR; i++) assert.equal((await readFeed(feedPath(feed.token))).statusCode, 200);
  const limited = await readFeed(feedPath(feed.token));
  assert.equal(limited.statusCode, 429);
  assert.equal(limited.json().error.code, 'rate_limited');
  assert.equal(limited.headers['retry-after'], '3600');
  t.clock.advance(3600_000);
  assert.equal((await readFeed(feedPath(feed.token))).statusCode, 200);
});

const atomJobsInThreads = () => extractionJobsSent(t, 'atom');

test('the feed’s document is made in an extraction thread, off the event loop; a 304 makes none', async () => {
  const { feed } = await accountWithChanges();
  const before = await atomJobsInThreads();
  const first = await readFeed(feedPath(feed.token));
  assert.equal(first.statusCode, 200);
  assert.equal(await atomJobsInThreads(), before + 1);
  const unchanged = await readFeed(feedPath(feed.token), { 'if-none-match': String(first.headers.etag) });
  assert.equal(unchanged.statusCode, 304);
  assert.equal(await atomJobsInThreads(), before + 1);
});
