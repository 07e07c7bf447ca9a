import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CHROMIUM_PATHS, ConfigError, defaultChromiumPath, loadConfig } from '../src/config.ts';

test('defaults follow DESIGN §2', () => {
  const config = loadConfig({});
  assert.equal(config.port, 8080);
  assert.equal(config.host, '127.0.0.1');
  assert.equal(config.dataDir, './data');
  assert.equal(config.databaseUrl, null);
  assert.equal(config.adminToken, null);
  assert.equal(config.publicUrl, 'http://127.0.0.1:8080');
  assert.equal(config.tickSeconds, 60);
  assert.equal(config.workerConcurrency, 4);
  assert.deepEqual(config.allowPorts, [80, 443]);
  assert.deepEqual(config.allowPrivateNetworks, []);
  assert.equal(config.chromiumPath, defaultChromiumPath());
  assert.equal(config.plans.pro.requests_per_minute, 60);
});

test("without PAGEWATCH_CHROMIUM_PATH the browser is Chromium's headless shell when installed, else /usr/bin/chromium", () => {
  const [shell, full] = CHROMIUM_PATHS;
  assert.equal(shell, '/usr/lib/chromium/chromium-headless-shell');
  assert.equal(
    defaultChromiumPath((path) => path === shell || path === full),
    shell,
  );
  assert.equal(
    defaultChromiumPath((path) => path === full),
    full,
  );
  assert.equal(
    defaultChromiumPath(() => false),
    '/usr/bin/chromium',
    'named in the launch error when none is installed',
  );
  assert.equal(loadConfig({ PAGEWATCH_CHROMIUM_PATH: '/opt/chrome/chrome' }).chromiumPath, '/opt/chrome/chrome');
});

test('settings beyond DESIGN §2 have documented defaults', () => {
  const config = loadConfig({});
  assert.equal(config.workerConcurrency, 4);
  assert.equal(config.leaseSeconds, 30);
  assert.equal(config.shutdownGraceSeconds, 25);
  assert.equal(config.smtpFrom, 'pagewatch@127.0.0.1');
  const custom = loadConfig({
    PAGEWATCH_LEASE_SECONDS: '90',
    PAGEWATCH_SHUTDOWN_GRACE_SECONDS: '0',
    PAGEWATCH_SMTP_FROM: 'alerts@example.com',
  });
  assert.deepEqual([custom.leaseSeconds, custom.shutdownGraceSeconds, custom.smtpFrom], [90, 0, 'alerts@example.com']);
});

test('a bad value stops start-up with a message naming the variable', () => {
  const cases: Record<string, string>[] = [
    { PORT: 'eighty' },
    { PORT: '70000' },
    { PAGEWATCH_TICK_SECONDS: '0' },
    { PAGEWATCH_WORKER_CONCURRENCY: '0' },
    { PAGEWATCH_LEASE_SECONDS: '2' },
    { PAGEWATCH_SHUTDOWN_GRACE_SECONDS: 'soon' },
    { PAGEWATCH_ALLOW_PORTS: '80,http' },
    { PAGEWATCH_ALLOW_PRIVATE_NETWORKS: '10.0.0.0' },
    { DATABASE_URL: 'mysql://x' },
    { PAGEWATCH_PUBLIC_URL: 'ftp://x' },
    { LOG_LEVEL: 'loud' },
    { PAGEWATCH_ADMIN_TOKEN: 'short' },
    { PAGEWATCH_PLANS_FILE: '/nonexistent/plans.json' },
  ];
  for (const env of cases) {
    const [name] = Object.keys(env);
    assert.throws(
      () => loadConfig(env),
      (err: Error) => err instanceof ConfigError && err.message.startsWith(`${name}:`),
      name,
    );
  }
});

test('the plans file deep-merges over the defaults', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pw-plans-'));
  const file = join(dir, 'plans.json');
  writeFileSync(file, JSON.stringify({ pro: { monitors: 500, min_interval_minutes: { html: 1 } } }));
  const config = loadConfig({ PAGEWATCH_PLANS_FILE: file });
  assert.equal(config.plans.pro.monitors, 500);
  assert.equal(config.plans.pro.min_interval_minutes.html, 1);
  assert.equal(config.plans.pro.min_interval_minutes.browser, 15);
});

test('an unknown key or a wrong type in the plans file stops start-up', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pw-plans-'));
  for (const content of [{ pro: { monitorz: 1 } }, { pro: { monitors: 'many' } }, { gold: {} }, { pro: { api_access: 1 } }]) {
    const file = join(dir, 'plans.json');
    writeFileSync(file, JSON.stringify(content));
    assert.throws(() => loadConfig({ PAGEWATCH_PLANS_FILE: file }), /PAGEWATCH_PLANS_FILE/);
  }
});

test('PAGEWATCH_CHANNEL_HOST_OVERRIDES is off by default and maps service hosts to origins; a malformed entry stops start-up', () => {
  assert.deepEqual(loadConfig({}).channelHostOverrides, {});
  const config = loadConfig({ PAGEWATCH_CHANNEL_HOST_OVERRIDES: 'hooks.slack.com=http://127.0.0.1:9000, Discord.com=http://[::1]:9001/' });
  assert.deepEqual(config.channelHostOverrides, { 'hooks.slack.com': 'http://127.0.0.1:9000', 'discord.com': 'http://[::1]:9001' });
  for (const bad of ['hooks.slack.com', 'hooks.slack.com=ftp://x', 'hooks.slack.com=http://127.0.0.1:9000/path', '=http://127.0.0.1']) {
    assert.throws(() => loadConfig({ PAGEWATCH_CHANNEL_HOST_OVERRIDES: bad }), /PAGEWATCH_CHANNEL_HOST_OVERRIDES/, bad);
  }
});

test('PAGEWATCH_PROXIES names the operator proxies with their credentials; none by default; Pro may use them, Free not', () => {
  const none = loadConfig({});
  assert.deepEqual(none.proxies, []);
  assert.deepEqual([none.plans.pro.proxies, none.plans.free.proxies], [true, false]);
  const config = loadConfig({
    PAGEWATCH_PROXIES: 'eu=http://user:p%40ss@proxy.example.com:3128, tls=https://proxy.example.net, home=socks5://10.0.0.5',
    PAGEWATCH_PRIVATE_PROXIES: 'home',
  });
  assert.deepEqual(
    config.proxies.map((p) => [p.name, p.protocol, p.host, p.port, p.username, p.password, p.privateAddress]),
    [
      ['eu', 'http', 'proxy.example.com', 3128, 'user', 'p@ss', false],
      ['tls', 'https', 'proxy.example.net', 443, null, null, false],
      ['home', 'socks5', '10.0.0.5', 1080, null, null, true],
    ],
  );
});

test('a malformed proxy list, or a proxy on a private or loopback address the operator did not name private, stops start-up', () => {
  const cases: [Record<string, string>, RegExp][] = [
    [{ PAGEWATCH_PROXIES: 'eu' }, /is not name=url/],
    [{ PAGEWATCH_PROXIES: 'EU=http://proxy.example.com' }, /is not name=url/],
    [{ PAGEWATCH_PROXIES: 'eu=ftp://proxy.example.com' }, /scheme must be http, https or socks5/],
    [{ PAGEWATCH_PROXIES: 'eu=http://proxy.example.com/path' }, /no path/],
    [{ PAGEWATCH_PROXIES: 'eu=http://a.example.com,eu=http://b.example.com' }, /used twice/],
    [{ PAGEWATCH_PROXIES: 'lo=http://127.0.0.1:3128' }, /loopback address 127\.0\.0\.1; name it in PAGEWATCH_PRIVATE_PROXIES/],
    [{ PAGEWATCH_PROXIES: 'lan=socks5://192.168.1.2' }, /private .*192\.168\.1\.2/],
    [{ PAGEWATCH_PROXIES: 'meta=http://169.254.169.254' }, /cloud metadata address/],
    [{ PAGEWATCH_PROXIES: 'eu=http://proxy.example.com', PAGEWATCH_PRIVATE_PROXIES: 'lo' }, /names lo, which is no proxy/],
  ];
  for (const [env, message] of cases) {
    assert.throws(
      () => loadConfig(env),
      (err: unknown) => err instanceof ConfigError && err.message.startsWith('PAGEWATCH_PROXIES: ') && message.test(err.message),
      JSON.stringify(env),
    );
  }
});

test('PAGEWATCH_SECRETS_KEY is unset by default and takes 32 bytes as hex or base64; anything else stops start-up', () => {
  assert.equal(loadConfig({}).secretsKey, null);
  const bytes = Buffer.alloc(32, 7);
  assert.deepEqual(loadConfig({ PAGEWATCH_SECRETS_KEY: bytes.toString('hex') }).secretsKey, bytes);
  assert.deepEqual(loadConfig({ PAGEWATCH_SECRETS_KEY: bytes.toString('base64') }).secretsKey, bytes);
  for (const bad of ['short', Buffer.alloc(16).toString('base64'), 'z'.repeat(64)]) {
    assert.throws(() => loadConfig({ PAGEWATCH_SECRETS_KEY: bad }), /PAGEWATCH_SECRETS_KEY/, bad);
  }
});

test('PAGEWATCH_PASSWORD_HASH_COST is scrypt N = 2^15 by default and takes 10 to 18; anything else stops start-up', () => {
  assert.equal(loadConfig({}).passwordHashCost, 15);
  assert.equal(loadConfig({ PAGEWATCH_PASSWORD_HASH_COST: '17' }).passwordHashCost, 17);
  for (const bad of ['9', '19', '15.5', 'high']) {
    assert.throws(() => loadConfig({ PAGEWATCH_PASSWORD_HASH_COST: bad }), /PAGEWATCH_PASSWORD_HASH_COST/, bad);
  }
});
