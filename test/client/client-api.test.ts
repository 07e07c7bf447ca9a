import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { PagewatchClient, PagewatchError, type Step, type Target } from '../../packages/client/src/index.ts';
import type { SteppedEngine } from '../../src/engine/scheduler.ts';
import { createAccountWithToken, type TestApp } from '../helpers/test-app.ts';
import type { FixtureServer } from '../helpers/fixture-server.ts';
import { useMonitoringWorld } from '../helpers/monitoring-world.ts';
import { checkDueMonitor } from '../helpers/test-engine.ts';
import { makePdf } from '../helpers/pdf-documents.ts';
import { serveValidatingPage } from '../helpers/validating-page.ts';
import { routeStepSites } from '../helpers/step-sites.ts';

// @pagewatch/client against a real pagewatch server listening on loopback,
// on the store the suite runs on. Waiting is done by moving the server's
// clock instead of sleeping, so Retry-After is honoured without delay.

let t: TestApp, site: FixtureServer, engine: SteppedEngine;
useMonitoringWorld({ env: { PAGEWATCH_SECRETS_KEY: 'a'.repeat(64) }, plans: { pro: { preview_spacing_seconds: 0 } } }, (w) => {
  ({ t, site, engine } = w);
  routeStepSites(site, { price: '€19.99', password: 'unused', portalPrice: '€1.00', otherOrigin: '', acceptId: 'accept' });
});
let base: string | null = null;

/** The app of the world, listening on loopback (once). */
async function listening(): Promise<string> {
  if (base === null) {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  }
  return base;
}

const TITLE: Target = {
  id: 'title',
  label: 'Title',
  kind: 'text',
  selection: { scope: 'selector', selector: '#product-title' },
  rule: 'changed',
};
let n = 0;
const pageUrl = () => `${site.url}/shop/espresso.html?client=${++n}`;

async function client(options: { sleep?: (ms: number) => Promise<void>; maxRetries?: number } = {}) {
  const { token } = await createAccountWithToken(t.app);
  const slept: number[] = [];
  const sleep =
    options.sleep ??
    (async (ms: number) => {
      slept.push(ms);
      t.clock.advance(ms);
    });
  return {
    pw: new PagewatchClient({
      baseUrl: await listening(),
      token,
      sleep,
      maxRetries: options.maxRetries,
      now: () => t.clock.now().getTime(),
    }),
    slept,
  };
}

async function monitorOf(pw: PagewatchClient, url = pageUrl()): Promise<string> {
  const preview = await pw.previews.create({ url, load_mode: 'html' });
  return (await pw.monitors.create({ preview_id: preview.id, targets: [TITLE], interval_minutes: 5 })).data.id;
}

test('preview, evaluate and create: typed results, an automatic Idempotency-Key, the Location', async () => {
  const { pw } = await client();
  const preview = await pw.previews.create({ url: pageUrl(), load_mode: 'html' });
  assert.ok(preview.elements.some((e) => e.selector === '#product-title'));
  const [result] = await pw.previews.evaluate(preview.id, [TITLE]);
  assert.equal(result?.ok, true);
  assert.equal(result?.value, 'Espressomaschine Duo');
  const created = await pw.monitors.create({ preview_id: preview.id, targets: [TITLE], interval_minutes: 5 });
  assert.equal(created.location, `/api/v1/monitors/${created.data.id}`);
  assert.equal(created.replayed, false);
  assert.equal((await pw.monitors.get(created.data.id)).url, preview.url);
});

test('the same Idempotency-Key replays the first creation instead of making a second monitor', async () => {
  const { pw } = await client();
  const preview = await pw.previews.create({ url: pageUrl(), load_mode: 'html' });
  const body = { preview_id: preview.id, targets: [TITLE], interval_minutes: 5 };
  const first = await pw.monitors.create(body, { idempotencyKey: 'client-create-once-1' });
  const again = await pw.monitors.create(body, { idempotencyKey: 'client-create-once-1' });
  assert.equal(again.data.id, first.data.id);
  assert.equal(again.replayed, true);
});

/** A document the fixture site serves at a fresh path, as that path's URL. */
function served(contentType: string, body: string | Buffer): string {
  const path = `/client-document-${++n}`;
  site.route(path, (_req, res) => {
    res.writeHead(200, { 'content-type': contentType });
    res.end(body);
  });
  return `${site.url}${path}`;
}

test('JSON by JSONPath, XPath and PDF through the client: previews of each format, typed targets evaluated and a monitor created', async () => {
  const { pw } = await client();
  const api = await pw.previews.create({ url: served('application/json', '{"offers": [{"price": 24.99}]}'), load_mode: 'html' });
  assert.equal(api.format, 'json');
  assert.ok(api.elements.some((e) => e.selector === '$.offers[0].price'));
  const byPath: Target = {
    id: 'price',
    kind: 'price',
    currency: 'EUR',
    rule: 'dropped',
    selection: { scope: 'json', path: '$.offers[0].price' },
  };
  assert.equal((await pw.previews.evaluate(api.id, [byPath]))[0]?.value, 2499);
  const created = await pw.monitors.create({ preview_id: api.id, targets: [byPath], interval_minutes: 5 });
  assert.deepEqual((await pw.monitors.get(created.data.id)).targets[0]?.selection, byPath.selection);

  const page = await pw.previews.create({
    url: served('text/html', '<table><tr><th>Price</th><td>9,90 €</td></tr></table>'),
    load_mode: 'html',
  });
  const byXPath: Target = { id: 'cell', kind: 'text', selection: { scope: 'xpath', expression: "//th[.='Price']/following-sibling::td" } };
  assert.equal((await pw.previews.evaluate(page.id, [byXPath]))[0]?.value, '9,90 €');

  const pdf = await pw.previews.create({
    url: served('application/pdf', makePdf([{ lines: [{ text: 'Fares 12.50 EUR' }] }])),
    load_mode: 'html',
  });
  assert.equal(pdf.format, 'pdf');
  const whole: Target = { id: 'fare', kind: 'price', currency: 'EUR', selection: { scope: 'page' } };
  assert.equal((await pw.previews.evaluate(pdf.id, [whole]))[0]?.value, 1250);
});

test('an invalid JSONPath or XPath is a PagewatchError target_invalid naming selector_invalid on the field', async () => {
  const { pw } = await client();
  const api = await pw.previews.create({ url: served('application/json', '{"a": 1}'), load_mode: 'html' });
  const error = await pw.previews
    .evaluate(api.id, [
      { id: 'p', kind: 'text', selection: { scope: 'json', path: '$.a[' } },
      { id: 'x', kind: 'text', selection: { scope: 'xpath', expression: "document('http://127.0.0.1/')" } },
    ])
    .catch((e: unknown) => e);
  assert.ok(error instanceof PagewatchError);
  assert.equal(error.code, 'target_invalid');
  assert.deepEqual(
    error.details.map((d) => [d.field, d.message.split(':')[0]]),
    [
      ['targets[0].selection.path', 'selector_invalid'],
      ['targets[1].selection.expression', 'selector_invalid'],
    ],
  );
});

test('list iterates every page through next_cursor, with the filters kept', async () => {
  const { pw } = await client();
  const ids = [];
  for (let i = 0; i < 5; i++) ids.push(await monitorOf(pw));
  await pw.monitors.update(ids[0]!, { status: 'paused' });
  const all = [];
  for await (const m of pw.monitors.list({ limit: 2 })) all.push(m.id);
  assert.deepEqual(all, [...ids].reverse());
  const active = [];
  for await (const m of pw.monitors.list({ limit: 2, status: 'active' })) active.push(m.id);
  assert.deepEqual(active, ids.slice(1).reverse());
});

test('errors are values with status, code, request_id and details', async () => {
  const { pw } = await client();
  const missing = await pw.monitors.get('00000000-0000-4000-8000-000000000000').catch((err: unknown) => err);
  assert.ok(missing instanceof PagewatchError);
  assert.equal(missing.status, 404);
  assert.equal(missing.code, 'not_found');
  assert.match(missing.requestId ?? '', /^[0-9a-f-]{36}$/);

  const preview = await pw.previews.create({ url: pageUrl(), load_mode: 'html' });
  const invalid = await pw.monitors.create({ preview_id: preview.id, targets: [TITLE], interval_minutes: 1 }).catch((err: unknown) => err);
  assert.ok(invalid instanceof PagewatchError);
  assert.equal(invalid.status, 422);
  assert.deepEqual(
    invalid.details.map((d) => d.field),
    ['interval_minutes'],
  );
});

test('429 is retried after its Retry-After, and thrown once the retries are spent', async () => {
  const { pw, slept } = await client();
  const id = await monitorOf(pw);
  // Use up the minute window (the plan's 60; each test has an account of its own) with requests the client sends itself.
  const usage = await pw.usage();
  for (let i = 0; i < usage.api.minute.remaining; i++) await pw.monitors.get(id).catch(() => undefined);
  const monitor = await pw.monitors.get(id);
  assert.equal(monitor.id, id, 'the request went through after waiting');
  assert.equal(slept.length, 1);
  assert.ok(slept[0]! >= 1000, `waited ${slept[0]} ms, the Retry-After at least`);

  const { pw: impatient } = await client({ maxRetries: 0 });
  const again = await impatient.usage();
  for (let i = 0; i < again.api.minute.remaining; i++) await impatient.usage().catch(() => undefined);
  const refused = await impatient.usage().catch((err: unknown) => err);
  assert.ok(refused instanceof PagewatchError);
  assert.equal(refused.code, 'rate_limited');
  assert.ok((refused.retryAfter ?? 0) > 0);
});

test('a manual check is requested once per key and its receipt polled until it is terminal', async () => {
  const { pw } = await client({
    sleep: async (ms) => {
      t.clock.advance(ms);
      await engine.runCycle();
    },
  });
  const id = await monitorOf(pw);
  const accepted = await pw.checks.request(id, { idempotencyKey: 'client-check-once-1' });
  assert.equal(accepted.data.status, 'queued');
  assert.equal(accepted.location, `/api/v1/checks/${accepted.data.check_id}`);
  const replay = await pw.checks.request(id, { idempotencyKey: 'client-check-once-1' });
  assert.equal(replay.data.check_id, accepted.data.check_id);
  assert.equal(replay.replayed, true);
  const done = await pw.checks.wait(accepted.data.check_id);
  assert.equal(done.status, 'succeeded');
});

test('checks.history iterates every check of a monitor, newest first, across pages of any size', async () => {
  const { pw } = await client();
  const id = await monitorOf(pw);
  for (let i = 0; i < 12; i++) await checkDueMonitor(t, engine, id);
  const history = async (limit: number) => {
    const times = [];
    for await (const check of pw.checks.history(id, { limit })) times.push(check.checked_at);
    return times;
  };
  const all = await history(100);
  assert.equal(all.length, 12);
  assert.deepEqual(all, [...all].sort().reverse(), 'newest first');
  for (const limit of [1, 5, 11]) assert.deepEqual(await history(limit), all, `pages of ${limit}`);
});

test('monitors.create sends a schedule and reads it back with next_check_at; a 304 check is not_modified in checks.history', async () => {
  const { pw } = await client();
  const page = serveValidatingPage(site);
  const preview = await pw.previews.create({ url: page.url, load_mode: 'html' });
  const schedule = { timezone: 'Europe/Berlin', days: ['mon' as const, 'tue' as const], hours: { from: 22, to: 2 }, jitter_seconds: 60 };
  const shopTitle: Target = { ...TITLE, selection: { scope: 'selector', selector: '#title' } };
  const created = await pw.monitors.create({ preview_id: preview.id, targets: [shopTitle], interval_minutes: 60, schedule });
  const monitor = await pw.monitors.get(created.data.id);
  assert.deepEqual(monitor.schedule, schedule);
  assert.equal(monitor.proxy, null);
  assert.ok(monitor.next_check_at !== null && !Number.isNaN(Date.parse(monitor.next_check_at)));

  for (let i = 0; i < 2; i++) await checkDueMonitor(t, engine, created.data.id);
  const outcomes = [];
  for await (const check of pw.checks.history(created.data.id)) outcomes.push([check.outcome, check.http_status]);
  assert.deepEqual(outcomes, [
    ['not_modified', 304],
    ['ok', 200],
  ]);
});

test('feedTokens.create makes a feed token whose feed_url serves Atom; list shows it without the secret; revoke ends its feed', async () => {
  const { pw } = await client();
  const created = await pw.feedTokens.create({ name: 'reader' });
  const path = new URL(created.feed_url).pathname;
  assert.equal(path, `/feeds/${created.token}/changes.atom`);
  const feed = await fetch(`${await listening()}${path}`);
  assert.equal(feed.status, 200);
  assert.match(feed.headers.get('content-type') ?? '', /^application\/atom\+xml/);
  const listed = await pw.feedTokens.list();
  assert.deepEqual(
    listed.map((f) => [f.id, f.state]),
    [[created.id, 'valid']],
  );
  assert.ok(!JSON.stringify(listed).includes(created.token));
  await pw.feedTokens.revoke(created.id);
  assert.equal((await pw.feedTokens.list())[0]!.state, 'revoked');
  assert.equal((await fetch(`${await listening()}${path}`)).status, 404);
});

test('channels.create makes a channel shown masked; get, list and delete see it; deliveries is its (empty) log', async () => {
  const { pw } = await client();
  const created = await pw.channels.create({ name: 'team', url: 'discord://1122/secretToken' });
  assert.deepEqual([created.type, created.url, created.state], ['discord', 'discord://1122/***', 'active']);
  assert.deepEqual(await pw.channels.get(created.id), created);
  assert.deepEqual(
    (await pw.channels.list()).map((c) => c.id),
    [created.id],
  );
  assert.deepEqual(await pw.channels.deliveries(created.id), []);
  await pw.channels.delete(created.id);
  assert.deepEqual(await pw.channels.list(), []);
});

test('secrets.put stores a secret by name, list shows names only, delete removes it', async () => {
  const { pw } = await client();
  const stored = await pw.secrets.put('supplier_password', 'hunter2-but-longer');
  assert.equal(stored.name, 'supplier_password');
  assert.deepEqual(
    (await pw.secrets.list()).map((s) => s.name),
    ['supplier_password'],
  );
  await pw.secrets.delete('supplier_password');
  assert.deepEqual(await pw.secrets.list(), []);
});

test('steps: a browser preview runs them and answers each outcome; evaluate and create carry them', async () => {
  const { pw } = await client();
  const steps: Step[] = [{ action: 'click', selector: '#accept' }];
  const price: Target = {
    id: 'price',
    kind: 'price',
    selection: { scope: 'selector', selector: '#price' },
    currency: 'EUR',
    rule: 'changed',
  };
  const preview = await pw.previews.create({ url: `${site.url}/cookie-wall`, load_mode: 'browser', steps });
  assert.deepEqual(
    preview.steps.map((s) => [s.action, s.ok, s.title]),
    [['click', true, 'Cookie wall']],
  );
  const [result] = await pw.previews.evaluate(preview.id, [price], steps);
  assert.equal(result?.value, 1999);
  const created = await pw.monitors.create({ preview_id: preview.id, targets: [price], steps, interval_minutes: 15 });
  assert.deepEqual((await pw.monitors.get(created.data.id)).steps, steps);
});
