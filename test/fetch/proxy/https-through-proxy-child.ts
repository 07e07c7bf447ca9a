// Started by outbound-proxies.test.ts with NODE_EXTRA_CA_CERTS naming
// test/fixtures/tls/test-ca.pem, which Node reads only at start: an https
// fixture server with a certificate of that CA for shop.example.com, an HTTP
// CONNECT proxy, the same proxy spoken to over TLS (an https proxy, its
// certificate for shop.example.com too), and the real html loader reaching
// the server through each.
// Prints one JSON report on stdout.
import { createServer } from 'node:https';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { createHtmlLoader } from '../../../src/fetch/loader/html-loader.ts';
import { guardPolicy, type LookupFn } from '../../../src/fetch/ssrf/guard.ts';
import { parseProxies } from '../../../src/domain/network/outbound-proxies.ts';
import type { LoadResult } from '../../../src/fetch/loader/types.ts';
import { pageText } from '../../../src/domain/page-source.ts';
import { startHttpConnectProxy, type CarriedTunnel } from '../../helpers/recording-proxies.ts';

export interface HttpsThroughProxyReport {
  port: number;
  /** the load of https://shop.example.com:port/, the name on the certificate */
  named: { status: number | null; issues: LoadResult['issues']; title: string | null };
  /** the load of the same server by another name, which the certificate does not carry */
  otherName: { issues: LoadResult['issues'] };
  carried: CarriedTunnel[];
  /** the load of https://shop.example.com:port/ through the https proxy */
  overTls: { status: number | null; issues: LoadResult['issues'] };
  carriedOverTls: CarriedTunnel[];
  /** the same through the https proxy named by a name its certificate does not carry */
  overTlsOtherName: { issues: LoadResult['issues'] };
}

const TLS_DIR = join(import.meta.dirname, '..', '..', 'fixtures', 'tls');
const PAGE =
  '<!doctype html><html><head><title>Over TLS, through the proxy</title></head><body><h1 id="product-title">Tunnelled</h1></body></html>';

const server = createServer(
  { cert: readFileSync(join(TLS_DIR, 'shop.example.com.pem')), key: readFileSync(join(TLS_DIR, 'shop.example.com.key')) },
  (_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE),
);
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const port = (server.address() as AddressInfo).port;
const proxy = await startHttpConnectProxy({ user: 'watcher', password: 'pw-1' });
const tlsProxy = await startHttpConnectProxy(
  { user: 'watcher', password: 'pw-1' },
  {
    cert: readFileSync(join(TLS_DIR, 'shop.example.com.pem')),
    key: readFileSync(join(TLS_DIR, 'shop.example.com.key')),
    host: 'shop.example.com',
  },
);

const lookup: LookupFn = async (hostname) => {
  if (hostname !== 'shop.example.com' && hostname !== 'other.example.com') {
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  }
  return [{ address: '127.0.0.1', family: 4 }];
};
const loader = createHtmlLoader({
  policy: guardPolicy({ trustedCidrs: ['127.0.0.0/8'] }),
  lookup,
  proxies: parseProxies(
    `corp=${proxy.url},tls=${tlsProxy.url},tlsother=${tlsProxy.url.replace('shop.example.com', 'other.example.com')}`,
    'corp,tls,tlsother',
  ),
  timeoutMs: 10_000,
  connectTimeoutMs: 3000,
});
try {
  const named = await loader.load({ url: `https://shop.example.com:${port}/`, mode: 'html', proxy: 'corp' });
  const otherName = await loader.load({ url: `https://other.example.com:${port}/`, mode: 'html', proxy: 'corp' });
  const overTls = await loader.load({ url: `https://shop.example.com:${port}/`, mode: 'html', proxy: 'tls' });
  const overTlsOtherName = await loader.load({ url: `https://shop.example.com:${port}/`, mode: 'html', proxy: 'tlsother' });
  const text = named.html === null ? '' : pageText(named.html);
  const report: HttpsThroughProxyReport = {
    port,
    named: { status: named.status, issues: named.issues, title: /<title>([^<]*)<\/title>/.exec(text)?.[1] ?? null },
    otherName: { issues: otherName.issues },
    carried: proxy.carried,
    overTls: { status: overTls.status, issues: overTls.issues },
    carriedOverTls: tlsProxy.carried,
    overTlsOtherName: { issues: overTlsOtherName.issues },
  };
  console.log(JSON.stringify(report));
} finally {
  await loader.close();
  await proxy.close();
  await tlsProxy.close();
  server.closeAllConnections();
  server.close();
}
