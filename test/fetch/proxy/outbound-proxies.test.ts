import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { isIP } from 'node:net';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createHtmlLoader } from '../../../src/fetch/loader/html-loader.ts';
import { createBrowserLoader } from '../../../src/fetch/loader/browser-loader.ts';
import { guardPolicy, type LookupFn } from '../../../src/fetch/ssrf/guard.ts';
import { vetProxyAddresses } from '../../../src/fetch/proxy/proxy-tunnel.ts';
import { parseProxies, type OutboundProxy } from '../../../src/domain/network/outbound-proxies.ts';
import type { PageLoader } from '../../../src/fetch/loader/types.ts';
import { startFixtureServer, type FixtureServer } from '../../helpers/fixture-server.ts';
import { startHttpConnectProxy, startSocks5Proxy, type RecordingProxy } from '../../helpers/recording-proxies.ts';
import type { HttpsThroughProxyReport } from './https-through-proxy-child.ts';

// Loads through the operator's outbound proxies (DESIGN §5 Outbound proxies):
// an HTTP CONNECT and a SOCKS5 proxy from npm on loopback, each with
// credentials, record what they carried. The SSRF guard judges the target before any
// proxy is asked, and the proxy is told the vetted address, never a name.

const NAMES: Record<string, string[]> = {
  'shop.example.com': ['127.0.0.1'],
  'private.example.com': ['10.0.0.7'],
  'metadata.example.com': ['169.254.169.254'],
  'proxy-on-loopback.example.com': ['127.0.0.1'],
};
const lookup: LookupFn = async (hostname) => {
  const addresses = NAMES[hostname];
  if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return addresses.map((address) => ({ address, family: isIP(address) }));
};
const CREDENTIALS = { user: 'pw-user', password: 's3cret:with colon' };

let site: FixtureServer;
let httpProxy: RecordingProxy;
let socksProxy: RecordingProxy;
let proxies: OutboundProxy[];
before(async () => {
  site = await startFixtureServer();
  httpProxy = await startHttpConnectProxy(CREDENTIALS);
  socksProxy = await startSocks5Proxy(CREDENTIALS);
  const wrong = httpProxy.url.replace('s3cret', 'nope');
  proxies = parseProxies(`corp=${httpProxy.url},socks=${socksProxy.url},badpass=${wrong}`, 'corp,socks,badpass');
});
after(async () => {
  await site.close();
  await httpProxy.close();
  await socksProxy.close();
});

const trusted = guardPolicy({ trustedCidrs: ['127.0.0.0/8'] });
const htmlLoader = (list = proxies) =>
  createHtmlLoader({ policy: trusted, lookup, proxies: list, timeoutMs: 10_000, connectTimeoutMs: 3000 });
const titleOf = (html: unknown) => /<title>([^<]*)<\/title>/.exec(String(html))?.[1];

async function loadWith(loader: PageLoader, url: string, proxy: string) {
  try {
    return await loader.load({ url, mode: 'html', proxy });
  } finally {
    await loader.close();
  }
}

describe('html mode', () => {
  test('a page loads through an HTTP CONNECT proxy with credentials, which carried the tunnel to the vetted address', async () => {
    const before = httpProxy.carried.length;
    const result = await loadWith(htmlLoader(), `http://shop.example.com:${site.port}/shop/espresso.html`, 'corp');
    assert.deepEqual(result.issues, []);
    assert.equal(result.status, 200);
    const [tunnel, ...more] = httpProxy.carried.slice(before);
    assert.equal(more.length, 0);
    assert.deepEqual(
      { target: tunnel?.target, user: tunnel?.user, opened: tunnel?.opened },
      {
        target: `127.0.0.1:${site.port}`,
        user: CREDENTIALS.user,
        opened: true,
      },
    );
    assert.ok(tunnel!.bytesDown > 1000, 'the page came through the tunnel');
  });

  test('a page loads through a SOCKS5 proxy with credentials, which is given the address, never the name', async () => {
    const before = socksProxy.carried.length;
    const result = await loadWith(htmlLoader(), `http://shop.example.com:${site.port}/shop/espresso.html`, 'socks');
    assert.deepEqual(result.issues, []);
    const { bytes } = result.html as { bytes: Uint8Array };
    assert.match(Buffer.from(bytes).toString(), /<title>/);
    const carried = socksProxy.carried.slice(before);
    assert.deepEqual(
      carried.map((c) => [c.target, c.user, c.opened]),
      [[`127.0.0.1:${site.port}`, CREDENTIALS.user, true]],
    );
  });

  test('targets the SSRF guard refuses are refused before any proxy is asked', async () => {
    const before = [httpProxy.carried.length, socksProxy.carried.length];
    for (const proxy of ['corp', 'socks']) {
      for (const url of [
        'http://private.example.com/',
        'http://metadata.example.com/latest/meta-data/',
        'http://10.0.0.1/',
        'http://[::1]:8080/',
      ]) {
        const result = await loadWith(createHtmlLoader({ policy: guardPolicy(), lookup, proxies, timeoutMs: 5000 }), url, proxy);
        assert.equal(result.issues[0]?.code, 'address_refused', `${url} via ${proxy}: ${JSON.stringify(result.issues)}`);
      }
    }
    assert.deepEqual([httpProxy.carried.length, socksProxy.carried.length], before, 'no proxy carried anything');
  });

  test('a redirect to a private address is refused at its hop, through the proxy as directly', async () => {
    site.route('/to-private', (_req, res) => void res.writeHead(302, { location: 'http://private.example.com/admin' }).end());
    const result = await loadWith(htmlLoader(), `http://shop.example.com:${site.port}/to-private`, 'corp');
    assert.equal(result.issues[0]?.code, 'address_refused');
    assert.match(result.issues[0]?.message ?? '', /private\.example\.com resolves to private .*address 10\.0\.0\.7/);
  });

  test('a proxy refusing the credentials fails the load naming the proxy, without its password', async () => {
    const result = await loadWith(htmlLoader(), `http://shop.example.com:${site.port}/shop/espresso.html`, 'badpass');
    assert.equal(result.issues[0]?.code, 'fetch_failed');
    assert.match(result.issues[0]?.message ?? '', /proxy badpass \(http:\/\/127\.0\.0\.1:\d+\): it refused the credentials \(407\)/);
    assert.doesNotMatch(result.issues[0]?.message ?? '', /nope|s3cret/i);
  });

  test('a proxy whose name resolves to loopback is refused unless the operator named it private', async () => {
    const [unnamed] = parseProxies(`lo=http://proxy-on-loopback.example.com:${httpProxy.port}`, '');
    const before = httpProxy.carried.length;
    const result = await loadWith(htmlLoader([unnamed!]), `http://shop.example.com:${site.port}/shop/espresso.html`, 'lo');
    assert.equal(result.issues[0]?.code, 'fetch_failed');
    assert.match(
      result.issues[0]?.message ?? '',
      /proxy-on-loopback\.example\.com resolves to loopback address 127\.0\.0\.1.*PAGEWATCH_PRIVATE_PROXIES/,
    );
    assert.equal(httpProxy.carried.length, before, 'the proxy was never asked');
    await assert.rejects(vetProxyAddresses([unnamed!], lookup), /PAGEWATCH_PRIVATE_PROXIES/, 'and the start is refused');
    await vetProxyAddresses(proxies, lookup);
  });

  test('a load naming a proxy that is not configured fails without a connection', async () => {
    const result = await loadWith(htmlLoader(), `http://shop.example.com:${site.port}/shop/espresso.html`, 'gone');
    assert.deepEqual(
      result.issues.map((i) => [i.code, i.message]),
      [['fetch_failed', 'no proxy named gone is configured']],
    );
  });
});

describe('html mode, https target', () => {
  // Node reads NODE_EXTRA_CA_CERTS only at start, so the loads run in a child process that trusts the test CA.
  let report: HttpsThroughProxyReport;
  before(async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', join(import.meta.dirname, 'https-through-proxy-child.ts')],
      { env: { ...process.env, NODE_EXTRA_CA_CERTS: join(import.meta.dirname, '..', '..', 'fixtures', 'tls', 'test-ca.pem') } },
    );
    report = JSON.parse(stdout.trim().split('\n').at(-1)!);
  });

  test('an https page loads through an HTTP CONNECT proxy, which carried a tunnel to the vetted address and port', () => {
    assert.deepEqual(report.named, { status: 200, issues: [], title: 'Over TLS, through the proxy' });
    const [tunnel] = report.carried;
    assert.deepEqual(
      { target: tunnel?.target, user: tunnel?.user, opened: tunnel?.opened },
      { target: `127.0.0.1:${report.port}`, user: 'watcher', opened: true },
    );
    assert.ok(tunnel!.bytesDown > 1000, 'the certificate and the page came through the tunnel');
  });

  test("inside the tunnel the server's certificate is checked against the URL's name, not the address the proxy was given", () => {
    assert.equal(report.carried[1]?.target, `127.0.0.1:${report.port}`);
    assert.deepEqual(
      report.otherName.issues.map((i) => i.code),
      ['fetch_failed'],
    );
    assert.match(report.otherName.issues[0]!.message, /ERR_TLS_CERT_ALTNAME_INVALID.*other\.example\.com/);
  });

  test("an https proxy is spoken to over TLS, its certificate checked against the proxy's name, and carries the tunnel", () => {
    assert.deepEqual(report.overTls, { status: 200, issues: [] });
    assert.deepEqual(
      report.carriedOverTls.map((c) => [c.target, c.user, c.opened]),
      [[`127.0.0.1:${report.port}`, 'watcher', true]],
    );
    assert.match(report.overTlsOtherName.issues[0]?.message ?? '', /proxy tlsother .*unreachable: .*other\.example\.com/);
    assert.equal(report.carriedOverTls.length, 1, 'a proxy whose certificate does not match is told nothing');
  });
});

describe('browser mode', () => {
  let browser: PageLoader;
  before(() => {
    browser = createBrowserLoader({ policy: trusted, proxies, timeoutMs: 30_000 });
  });
  after(() => browser.close());

  for (const [name, proxy] of [
    ['an HTTP CONNECT', 'corp'],
    ['a SOCKS5', 'socks'],
  ] as const) {
    test(`Chromium's filtering proxy chains to ${name} proxy: the page and its resources come through it`, async () => {
      const recording = proxy === 'corp' ? httpProxy : socksProxy;
      const before = recording.carried.length;
      const result = await browser.load({ url: `${site.url}/shop/espresso.html`, mode: 'browser', proxy });
      assert.deepEqual(result.issues, []);
      assert.equal(titleOf(result.html), 'Espressomaschine Duo – Kaffeehaus');
      const carried = recording.carried.slice(before);
      assert.ok(carried.length >= 1, `nothing carried: ${JSON.stringify(recording.carried)}`);
      assert.ok(
        carried.every((c) => c.target === `127.0.0.1:${site.port}` && c.user === CREDENTIALS.user && c.opened),
        JSON.stringify(carried),
      );
    });
  }

  test('a private target is refused by the filtering proxy before the operator proxy is asked', async () => {
    const strict = createBrowserLoader({ policy: guardPolicy(), proxies, timeoutMs: 20_000 });
    try {
      const before = httpProxy.carried.length;
      const result = await strict.load({ url: `${site.url}/shop/espresso.html`, mode: 'browser', proxy: 'corp' });
      assert.equal(result.issues[0]?.code, 'address_refused');
      assert.equal(httpProxy.carried.length, before);
    } finally {
      await strict.close();
    }
  });
});
