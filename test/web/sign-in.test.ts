import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { admin, bearer, createAccountWithToken, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { createOwner, DashboardClient, OWNER_PASSWORD, passwordLink, signedIn } from '../helpers/dashboard-client.ts';

let t: TestApp;
// The owner of the tests that only need someone to sign in (setting a password
// hashes it, which is most of this file's time); tests that count failures
// against an account or change its password make their own.
let owner: { accountId: string; email: string };
before(async () => {
  t = await startTestApp();
  owner = await createOwner(t.app);
});
after(() => t.close());

function cookieLine(res: { headers: Record<string, unknown> }, name: string): string {
  const header = res.headers['set-cookie'];
  const lines = (Array.isArray(header) ? header : [header]).filter((l): l is string => typeof l === 'string');
  const line = lines.find((l) => l.startsWith(`${name}=`) && !/Max-Age=0/.test(l));
  assert.ok(line, `no ${name} cookie in ${JSON.stringify(lines)}`);
  return line;
}

test('the operator creates a one-time set-password link; it works once', async () => {
  const account = await admin(t.app, 'POST', '/accounts', { email: 'link-owner@example.com', plan: 'pro' });
  const { url, token } = await passwordLink(t.app, account.json().data.id);
  assert.match(url, /^http:\/\/127\.0\.0\.1:8080\/set-password\?token=[A-Za-z0-9_-]{43}$/);
  const client = new DashboardClient(t.app);
  const form = await client.get(`/set-password?token=${token}`);
  assert.equal(form.statusCode, 200);
  assert.match(form.body, /link-owner@example\.com/);
  const set = await client.post('/set-password', { token, password: 'a long enough secret', confirm: 'a long enough secret' });
  assert.equal(set.statusCode, 303);
  assert.equal(set.headers.location, '/sign-in?notice=password-set');
  const again = await client.post('/set-password', { token, password: 'another long secret', confirm: 'another long secret' });
  assert.equal(again.statusCode, 410);
  assert.equal((await client.get(`/set-password?token=${token}`)).statusCode, 410);
  await signedIn(t.app, 'link-owner@example.com', 'a long enough secret');
});

test('a password is stored as a scrypt hash at the configured PAGEWATCH_PASSWORD_HASH_COST, never as given', async () => {
  const [row] = await t.db.query<{ password_hash: string }>('SELECT password_hash FROM account_passwords WHERE account_id = $1', [
    owner.accountId,
  ]);
  assert.match(row!.password_hash, new RegExp(`^scrypt\\$${2 ** t.config.passwordHashCost}\\$8\\$1\\$`));
  assert.ok(!row!.password_hash.includes(OWNER_PASSWORD));
});

test("a password link for an unknown account is 404 in the operator API's JSON", async () => {
  const res = await admin(t.app, 'POST', '/accounts/00000000-0000-4000-8000-000000000000/password-link', {});
  assert.equal(res.statusCode, 404);
  assert.equal(res.json().error.code, 'not_found');
});

test('a set-password link expires after 24 hours and a newer link replaces an older one', async () => {
  const account = await admin(t.app, 'POST', '/accounts', { email: 'expiry-owner@example.com', plan: 'pro' });
  const first = await passwordLink(t.app, account.json().data.id);
  const second = await passwordLink(t.app, account.json().data.id);
  const client = new DashboardClient(t.app);
  assert.equal((await client.get(`/set-password?token=${first.token}`)).statusCode, 410);
  assert.equal((await client.get(`/set-password?token=${second.token}`)).statusCode, 200);
  t.clock.advance(24 * 3_600_000 + 1000);
  assert.equal((await client.get(`/set-password?token=${second.token}`)).statusCode, 410);
  t.clock.advance(-(24 * 3_600_000 + 1000));
});

test('a short or mistyped password is refused with a message', async () => {
  const account = await admin(t.app, 'POST', '/accounts', { email: 'short-owner@example.com', plan: 'pro' });
  const { token } = await passwordLink(t.app, account.json().data.id);
  const client = new DashboardClient(t.app);
  await client.get(`/set-password?token=${token}`);
  const short = await client.post('/set-password', { token, password: 'short', confirm: 'short' });
  assert.equal(short.statusCode, 422);
  assert.match(short.body, /at least 10 characters/);
  const differ = await client.post('/set-password', { token, password: 'long enough one', confirm: 'long enough two' });
  assert.equal(differ.statusCode, 422);
  assert.match(differ.body, /the two passwords differ/);
});

test('sign-in sets an HttpOnly SameSite=Lax session cookie, stored only as a hash', async () => {
  const { email } = owner;
  const client = new DashboardClient(t.app);
  await client.get('/sign-in');
  const res = await client.post('/sign-in', { email, password: OWNER_PASSWORD });
  assert.equal(res.statusCode, 303);
  assert.equal(res.headers.location, '/');
  const line = cookieLine(res, 'pw_session');
  assert.match(line, /; HttpOnly/);
  assert.match(line, /; SameSite=Lax/);
  assert.match(line, /; Path=\//);
  assert.doesNotMatch(line, /Secure/, 'plain http: no Secure flag');
  const secret = client.cookies.get('pw_session')!;
  const rows = await t.db.query<{ id_hash: string }>('SELECT id_hash FROM dashboard_sessions');
  assert.ok(rows.every((r) => r.id_hash !== secret));
  assert.ok(rows.some((r) => r.id_hash === createHash('sha256').update(secret).digest('hex')));
  const home = await client.get('/');
  assert.equal(home.statusCode, 200);
  assert.match(home.body, /<h1>Monitors<\/h1>/);
});

test('the session cookie is Secure behind an https proxy and with an https public URL', async () => {
  const { email } = owner;
  const proxied = new DashboardClient(t.app, { 'x-forwarded-proto': 'https' });
  await proxied.get('/sign-in');
  assert.match(cookieLine(await proxied.post('/sign-in', { email, password: OWNER_PASSWORD }), 'pw_session'), /; Secure/);

  const https = await startTestApp({ env: { PAGEWATCH_PUBLIC_URL: 'https://watch.example.com' }, sharedDb: t.db });
  try {
    const owner = await createOwner(https.app);
    const client = new DashboardClient(https.app);
    const page = await client.get('/sign-in');
    assert.match(cookieLine(page, 'pw_pre'), /; Secure/);
    assert.match(cookieLine(await client.post('/sign-in', { email: owner.email, password: OWNER_PASSWORD }), 'pw_session'), /; Secure/);
  } finally {
    await https.close();
  }
});

test('a wrong password or unknown email gets the same refusal', async () => {
  const { email } = await createOwner(t.app);
  const client = new DashboardClient(t.app, {}, '10.0.0.1');
  await client.get('/sign-in');
  const wrong = await client.post('/sign-in', { email, password: 'not the password' });
  const unknown = await client.post('/sign-in', { email: 'nobody@example.com', password: 'not the password' });
  for (const res of [wrong, unknown]) {
    assert.equal(res.statusCode, 401);
    assert.match(res.body, /The email or password is not correct/);
    assert.equal(res.headers['set-cookie']?.toString().includes('pw_session=') ?? false, false);
  }
});

test('five failures in 15 minutes throttle the account, even for the right password, then it frees up', async () => {
  const { email } = await createOwner(t.app);
  const client = new DashboardClient(t.app, {}, '10.0.0.2');
  await client.get('/sign-in');
  // Sent at once (each hashes, the cost of this test): no attempt sees five failures before all five are counted.
  const failures = await Promise.all(Array.from({ length: 5 }, (_, i) => client.post('/sign-in', { email, password: `wrong ${i}` })));
  assert.deepEqual(
    failures.map((res) => res.statusCode),
    [401, 401, 401, 401, 401],
  );
  const other = new DashboardClient(t.app, {}, '10.0.0.3');
  await other.get('/sign-in');
  const throttled = await other.post('/sign-in', { email, password: OWNER_PASSWORD });
  assert.equal(throttled.statusCode, 429);
  assert.match(throttled.body, /Too many failed sign-in attempts\. Try again in 15 minutes\./);
  assert.equal(throttled.headers['retry-after'], '900');
  t.clock.advance(15 * 60_000 + 1000);
  assert.equal((await other.post('/sign-in', { email, password: OWNER_PASSWORD })).statusCode, 303);
});

test('twenty failures from one address throttle that address for every account', async () => {
  const owners = await Promise.all([createOwner(t.app), createOwner(t.app), createOwner(t.app), createOwner(t.app), createOwner(t.app)]);
  const client = new DashboardClient(t.app, {}, '10.0.0.4');
  await client.get('/sign-in');
  // Four per account (one short of throttling it), the accounts' failures at once.
  const failures = await Promise.all(
    owners.map(async (owner) => {
      const codes = [];
      for (let i = 0; i < 4; i++)
        codes.push((await client.post('/sign-in', { email: owner.email, password: 'wrong password' })).statusCode);
      return codes;
    }),
  );
  assert.deepEqual(failures.flat(), Array<number>(20).fill(401));
  const fresh = await createOwner(t.app);
  const res = await client.post('/sign-in', { email: fresh.email, password: OWNER_PASSWORD });
  assert.equal(res.statusCode, 429);
  const elsewhere = await signedIn(t.app, fresh.email, OWNER_PASSWORD);
  assert.ok(elsewhere.cookies.has('pw_session'));
});

test("a POST without the CSRF token, with a wrong one or with another session's is refused", async () => {
  const { email } = owner;
  const client = await signedIn(t.app, email);
  await client.get('/api-access');
  const other = await signedIn(t.app, email);
  await other.get('/api-access');
  const form = { name: 'csrf test', scopes: 'usage:read', days: '30' };
  for (const csrf of [null, 'forged-token', other.csrf]) {
    const res = await client.post('/api-access/tokens', form, { csrf });
    assert.equal(res.statusCode, 403, `csrf ${csrf}`);
    assert.match(res.headers['content-type'] as string, /text\/html/);
    assert.match(res.body, /Form expired/);
  }
  const sansToken = await client.post('/sign-out', {}, { csrf: null });
  assert.equal(sansToken.statusCode, 403);
  const rows = await t.db.query('SELECT 1 FROM api_tokens WHERE name = $1', ['csrf test']);
  assert.equal(rows.length, 0);
  assert.equal((await client.post('/api-access/tokens', form)).statusCode, 201);
});

test("the sign-in form needs the CSRF token of the visitor's pre-session cookie", async () => {
  const { email } = owner;
  const client = new DashboardClient(t.app);
  await client.get('/sign-in');
  assert.ok(client.cookies.has('pw_pre'));
  assert.equal((await client.post('/sign-in', { email, password: OWNER_PASSWORD }, { csrf: null })).statusCode, 403);
  const stranger = new DashboardClient(t.app);
  await stranger.get('/sign-in');
  assert.equal((await client.post('/sign-in', { email, password: OWNER_PASSWORD }, { csrf: stranger.csrf })).statusCode, 403);
});

test('dashboard cookies never authenticate /api/v1, and the API sets no cookies', async () => {
  const { email } = owner;
  const client = await signedIn(t.app, email);
  const res = await t.app.inject({ method: 'GET', url: '/api/v1/usage', headers: { cookie: client.cookieHeader() } });
  assert.equal(res.statusCode, 401);
  assert.equal(res.json().error.code, 'unauthorized');
  assert.equal(res.headers['set-cookie'], undefined);
  const { token } = await createAccountWithToken(t.app);
  const withToken = await t.app.inject({
    method: 'GET',
    url: '/api/v1/usage',
    headers: { ...bearer(token), cookie: client.cookieHeader() },
  });
  assert.equal(withToken.statusCode, 200);
  assert.equal(withToken.headers['set-cookie'], undefined);
});

test('signed-out visitors are sent to sign-in; unknown pages are HTML 404s; API 404s stay JSON', async () => {
  const anonymous = new DashboardClient(t.app);
  const home = await anonymous.get('/api-access');
  assert.equal(home.statusCode, 303);
  assert.equal(home.headers.location, '/sign-in?notice=signed-in-required&next=%2Fapi-access');
  const missing = await anonymous.get('/no-such-page');
  assert.equal(missing.statusCode, 404);
  assert.match(missing.headers['content-type'] as string, /text\/html/);
  const api = await t.app.inject({ method: 'GET', url: '/api/v2/no-such-thing' });
  assert.equal(api.statusCode, 404);
  assert.equal(api.json().error.code, 'not_found');
});

test('after sign-in the owner lands on the page they asked for, never on another site', async () => {
  const { email } = owner;
  const cases = [
    ['/usage', '/usage'],
    ['//evil.example', '/'],
    ['https://evil.example', '/'],
  ] as const;
  // One visitor per next, signing in at once (each sign-in hashes the password, the cost of this test).
  const locations = await Promise.all(
    cases.map(async ([next]) => {
      const client = new DashboardClient(t.app);
      await client.get(`/sign-in?next=${encodeURIComponent(next)}`);
      return (await client.post('/sign-in', { email, password: OWNER_PASSWORD, next })).headers.location;
    }),
  );
  assert.deepEqual(
    locations,
    cases.map(([, expected]) => expected),
  );
});

test('a next with a CR, LF, TAB or other non-printable character is dropped for "/", never a 500 or a Location browsers read as another site', async () => {
  const { email } = owner;
  const nexts = ['/\t/evil.example', '/\r\nSet-Cookie: a=b', '/usage\n', '/a b', '/\u0085x', '/\u00e9', '/\u007f'];
  // One visitor per next, signing in at once (each sign-in hashes the password, the cost of this test).
  await Promise.all(
    nexts.map(async (next) => {
      const client = new DashboardClient(t.app);
      const page = await client.get(`/sign-in?next=${encodeURIComponent(next)}`);
      assert.equal(page.statusCode, 200, JSON.stringify(next));
      const res = await client.post('/sign-in', { email, password: OWNER_PASSWORD, next });
      assert.equal(res.statusCode, 303, JSON.stringify(next));
      assert.equal(res.headers.location, '/', JSON.stringify(next));
    }),
  );
});

test('sign-out ends the session on the server; a replayed cookie no longer works', async () => {
  const { email } = owner;
  const client = await signedIn(t.app, email);
  const cookie = client.cookieHeader();
  await client.get('/');
  const out = await client.post('/sign-out');
  assert.equal(out.statusCode, 303);
  assert.equal(out.headers.location, '/sign-in?notice=signed-out');
  const replay = await t.app.inject({ method: 'GET', url: '/', headers: { cookie } });
  assert.equal(replay.statusCode, 303);
});

test('a session expires after 12 idle hours, and setting a new password ends every session', async () => {
  const { accountId, email } = await createOwner(t.app);
  const idle = await signedIn(t.app, email);
  t.clock.advance(11 * 3_600_000);
  assert.equal((await idle.get('/')).statusCode, 200, 'use extends the idle expiry');
  t.clock.advance(11 * 3_600_000);
  assert.equal((await idle.get('/')).statusCode, 200);
  t.clock.advance(12 * 3_600_000 + 1000);
  assert.equal((await idle.get('/')).statusCode, 303);

  const active = await signedIn(t.app, email);
  const { token } = await passwordLink(t.app, accountId);
  const setter = new DashboardClient(t.app);
  await setter.get(`/set-password?token=${token}`);
  await setter.post('/set-password', { token, password: 'a brand new password', confirm: 'a brand new password' });
  assert.equal((await active.get('/')).statusCode, 303);
  await signedIn(t.app, email, 'a brand new password');
});

test('dashboard pages send no-store, a strict CSP and no framing', async () => {
  const res = await new DashboardClient(t.app).get('/sign-in');
  assert.equal(res.headers['cache-control'], 'no-store');
  assert.match(res.headers['content-security-policy'] as string, /default-src 'none'; script-src 'self'/);
  assert.equal(res.headers['x-frame-options'], 'DENY');
  const css = await t.app.inject({ method: 'GET', url: '/assets/dashboard.css' });
  assert.equal(css.statusCode, 200);
  assert.match(css.headers['content-type'] as string, /text\/css/);
});
