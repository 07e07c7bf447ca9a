import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bearer, createAccountWithToken, type TestApp } from '../helpers/test-app.ts';
import { ADMIN_TOKEN } from '../helpers/test-credentials.ts';
import type { FixtureServer } from '../helpers/fixture-server.ts';
import { useMonitoringWorld } from '../helpers/monitoring-world.ts';
import { createMonitorFor, loadPreview, TITLE_TARGET } from '../helpers/monitor-api.ts';

// Thousands of generated requests — bodies, queries, ids and headers, valid
// and not — against the real app: every answer is a success or a 4xx, never
// a 5xx. Bodies include JSON nested thousands deep; parameters, paths and
// headers include control characters. The generator is seeded, so a failure repeats. No generated URL
// names a host to resolve: page loads go to the local fixture site or to
// literal addresses the guard refuses without a connection.

const REQUESTS = 10_000;
const IN_FLIGHT = 8;
let t: TestApp, site: FixtureServer;
useMonitoringWorld(
  {
    plans: {
      pro: {
        preview_spacing_seconds: 0,
        previews_per_day: 100_000,
        previews_per_month: 100_000,
        requests_per_minute: 1_000_000,
        requests_per_day: 1_000_000,
        idempotency_keys_per_day: 1_000_000,
        manual_checks_per_day: 100_000,
        monitors: 100_000,
      },
    },
  },
  (w) => ({ t, site } = w),
);

/** mulberry32: a small seeded generator. */
function prng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

const random = prng(20261125);
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const chance = (p: number) => random() < p;

const ODD_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\uD800',
  '\uDFFF',
  'x'.repeat(513),
  'x'.repeat(5000),
  '💥',
  'null',
  '-1',
  '1e309',
  'NaN',
  '0x10',
  '<script>alert(1)</script>',
  "' OR 1=1 --",
  '%00',
  '%zz',
  '../../etc/passwd',
  'urn:uuid:00000000-0000-4000-8000-000000000000',
  '00000000-0000-4000-8000-000000000000',
  'ffffffff-ffff-ffff-ffff-ffffffffffff',
  '2016-12-31T23:59:60Z',
  '0000-01-01T00:00:00Z',
  '9999-12-31T23:59:59-23:59',
  '2026-02-30T00:00:00Z',
  '2026-11-25T00:00:00Z',
  'true',
  '[]',
  '{}',
  'EUR',
  'p[[[',
  'section div div div div div span',
  '#product-title',
  'http://10.0.0.1/',
  'http://169.254.169.254/',
  'ftp://x/',
  'javascript:alert(1)',
  'http://[::1]/',
  'http://0x7f000001/',
  '\t',
  '\r\n',
  'a\rb',
  '\n',
  '\u0001',
  '\u001b[31m',
  '\u007f',
  '\u0085',
  '\u2028',
  '/\t/evil.example',
  'pwk_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
];

/** Values a header may carry on the wire (TAB and bytes 0x80–0xff included), control characters as such. */
const ODD_HEADER_VALUES = ['\tx', 'a\tb', '\u00ff\u0080', '()<>@,;:\\"/[]?={}', ' ', 'x'.repeat(4000), '%00', '\u00e9t\u00e9'];
const deepJson = () => {
  const depth = pick([33, 100, 8000]);
  return chance(0.5) ? '['.repeat(depth) + ']'.repeat(depth) : `{"name": ${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`;
};

function oddValue(depth = 0): unknown {
  switch (Math.floor(random() * 9)) {
    case 0:
      return pick(ODD_STRINGS);
    case 1:
      return Math.floor(random() * 2 ** 31) * (chance(0.3) ? -1 : 1);
    case 2:
      return pick([0, -0, 1.5, 2 ** 53, -(2 ** 63), 1e308, 3]);
    case 3:
      return chance(0.5);
    case 4:
      return null;
    case 5:
      return depth > 2 ? [] : Array.from({ length: Math.floor(random() * 4) }, () => oddValue(depth + 1));
    case 6:
      return depth > 2
        ? {}
        : Object.fromEntries(Array.from({ length: Math.floor(random() * 3) }, () => [pick(ODD_STRINGS).slice(0, 20), oddValue(depth + 1)]));
    default:
      return pick(ODD_STRINGS) + String(Math.floor(random() * 100));
  }
}

/** A plausible value with one field replaced, dropped or added. */
function mutate(value: unknown): unknown {
  if (chance(0.1) || !value || typeof value !== 'object' || Array.isArray(value)) return oddValue();
  const copy = structuredClone(value) as Record<string, unknown>;
  const keys = Object.keys(copy);
  const roll = random();
  if (roll < 0.5 && keys.length) copy[pick(keys)] = oddValue();
  else if (roll < 0.7 && keys.length) delete copy[pick(keys)];
  else if (roll < 0.8) copy[pick(ODD_STRINGS).slice(0, 12) || 'extra'] = oddValue();
  if (Array.isArray(copy.targets) && chance(0.5)) copy.targets = [mutate(copy.targets[0])];
  return copy;
}

/** A URL component; lone surrogates cannot be percent-encoded, so they travel as U+FFFD. */
const enc = (value: string) => encodeURIComponent(value.replace(/[\uD800-\uDFFF]/g, '\uFFFD'));

const PRICE = { id: 'price', kind: 'price', selection: { scope: 'page' }, currency: 'EUR', rule: 'below', threshold: '30.00' };

test(
  `${REQUESTS} generated requests, with deep JSON and control characters in parameters, paths and headers, never answer 5xx`,
  { timeout: 30 * 60_000 },
  async () => {
    const { token, accountId } = await createAccountWithToken(t.app, { days: 365 });
    const monitorId = await createMonitorFor(t.app, token, `${site.url}/shop/espresso.html?fuzz=monitor`);
    let previewId = await loadPreview(t.app, token, `${site.url}/shop/espresso.html?fuzz=preview`);
    const ids = () => pick([monitorId, previewId, accountId, pick(ODD_STRINGS), '00000000-0000-4000-8000-000000000000']);
    const requests: (() => { method: 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT'; url: string; body?: unknown })[] = [
      () => ({ method: 'GET', url: `/api/v1/monitors?${pick(['limit', 'status', 'cursor', 'label', 'x'])}=${enc(String(oddValue()))}` }),
      () => ({ method: 'GET', url: `/api/v1/monitors/${enc(String(ids()))}` }),
      () => ({
        method: 'PATCH',
        url: `/api/v1/monitors/${enc(String(ids()))}`,
        body: mutate({
          name: 'n',
          labels: ['a'],
          status: 'active',
          expected_version: 1,
          preview_id: previewId,
          targets: [TITLE_TARGET],
          interval_minutes: 60,
        }),
      }),
      () => ({
        method: 'POST',
        url: '/api/v1/monitors',
        body: mutate({
          preview_id: previewId,
          targets: [TITLE_TARGET, PRICE],
          interval_minutes: 60,
          name: 'fuzz',
          labels: ['x'],
          notifications: { email_enabled: true },
        }),
      }),
      () => ({ method: 'POST', url: `/api/v1/previews/${enc(String(ids()))}/evaluate`, body: mutate({ targets: [TITLE_TARGET, PRICE] }) }),
      () => ({
        method: 'POST',
        url: '/api/v1/previews',
        body: mutate({ url: chance(0.05) ? `${site.url}/shop/espresso.html?f=${random()}` : pick(ODD_STRINGS), load_mode: 'html' }),
      }),
      () => ({
        method: 'GET',
        url: `/api/v1/changes?${pick(['monitor_id', 'target_id', 'since', 'until', 'matched', 'limit', 'cursor'])}=${enc(String(oddValue()))}`,
      }),
      () => ({ method: 'GET', url: `/api/v1/changes/${enc(String(ids()))}` }),
      () => ({ method: 'GET', url: `/api/v1/checks/${enc(String(ids()))}` }),
      () => ({ method: 'GET', url: `/api/v1/monitors/${enc(String(ids()))}/checks?cursor=${enc(String(oddValue()))}` }),
      () => ({ method: 'POST', url: `/api/v1/monitors/${enc(String(ids()))}/checks`, body: chance(0.5) ? {} : oddValue() }),
      () => ({ method: 'GET', url: `/api/v1/usage?${pick(['', 'x=1'])}` }),
      () => ({ method: 'POST', url: '/admin/v1/accounts', body: mutate({ email: `f${random()}@example.com`, plan: 'pro' }) }),
      () => ({
        method: 'PATCH',
        url: `/admin/v1/accounts/${enc(String(ids()))}`,
        body: mutate({ plan: 'pro', webhook_url: pick(['http://10.0.0.1/h', 'https://93.184.216.34/h', 'x', null]) }),
      }),
      () => ({
        method: 'POST',
        url: `/admin/v1/accounts/${enc(String(ids()))}/tokens`,
        body: mutate({ name: 'f', scopes: ['usage:read'], expires_in_days: 30 }),
      }),
      () => ({ method: 'DELETE', url: `/admin/v1/tokens/${enc(String(ids()))}` }),
      () => ({
        method: 'GET',
        url: `/api/v1/${enc(String(oddValue()))}/${enc(String(oddValue()))}?${enc(String(oddValue()))}=${enc(String(oddValue()))}`,
      }),
      () => ({ method: 'GET', url: `/sign-in?next=${enc(String(oddValue()))}&notice=${enc(String(oddValue()))}` }),
      () => ({
        method: 'GET',
        url: `/${pick(['monitors', 'changes', 'usage', 'api-access'])}/${enc(String(oddValue()))}?failing=${enc(String(oddValue()))}`,
      }),
      () => ({ method: 'GET', url: `/set-password?token=${enc(String(oddValue()))}` }),
    ];
    const failures: string[] = [];
    const seen = new Set<number>();
    /** The i-th request, drawn from the seeded generator (so drawn in order, whatever order the answers come in). */
    const draw = (i: number) => {
      const { method, url, body } = pick(requests)();
      const isAdmin = url.startsWith('/admin');
      const headers: Record<string, string> = { authorization: isAdmin ? `Bearer ${ADMIN_TOKEN}` : bearer(token).authorization };
      if (chance(0.2)) {
        const name = pick([
          'authorization',
          'accept',
          'accept-language',
          'cookie',
          'user-agent',
          'x-forwarded-proto',
          'x-forwarded-for',
          'if-none-match',
          'host',
        ]);
        headers[name] = pick(ODD_HEADER_VALUES) + pick(ODD_STRINGS).replace(/[^\t\x20-\x7e\x80-\xff]/g, '');
      }
      if (body !== undefined)
        headers['content-type'] = chance(0.95)
          ? 'application/json'
          : pick(['text/plain', 'application/json; charset=latin1', 'application/x-www-form-urlencoded']);
      if (method === 'POST' && chance(0.9))
        headers['idempotency-key'] = chance(0.9)
          ? `fuzz-${i}-${Math.floor(random() * 1e9)}`
          : String(pick(ODD_STRINGS)).replace(/[^\x20-\x7e]/g, '?');
      const payload = body === undefined ? undefined : chance(0.03) ? '{"broken": ' : chance(0.05) ? deepJson() : JSON.stringify(body);
      return { method, url, headers, payload };
    };
    const send = async (request: ReturnType<typeof draw>) => {
      const res = await t.app.inject(request);
      seen.add(res.statusCode);
      if (res.statusCode >= 500)
        failures.push(`${res.statusCode} ${request.method} ${request.url} ${request.payload ?? ''} → ${res.body.slice(0, 200)}`);
    };
    // A few requests in flight at once, as clients send them: the app's work on
    // one overlaps the store's on another instead of each waiting its turn.
    for (let i = 0; i < REQUESTS; i += IN_FLIGHT) {
      const group = Array.from({ length: Math.min(IN_FLIGHT, REQUESTS - i) }, (_, k) => draw(i + k));
      await Promise.all(group.map(send));
      if (i % 200 === 0) previewId = await loadPreview(t.app, token, `${site.url}/shop/espresso.html?fuzz=${i}`);
    }
    assert.deepEqual(failures, []);
    // The generator reaches past the gate: successes and each kind of refusal occur.
    for (const status of [200, 201, 202, 400, 404, 409, 414, 415, 422])
      assert.ok(seen.has(status), `no ${status} among ${[...seen].sort()}`);
  },
);
