import ipaddr from 'ipaddr.js';
import { forbiddenReason, metadataReason } from './ip-ranges.ts';

// The operator's named outbound proxies (DESIGN §5 Outbound proxies): what a
// monitor may send its checks through. Parsed once from the configuration.

export type ProxyProtocol = 'http' | 'https' | 'socks5';

export interface OutboundProxy {
  /** what a monitor's `proxy` field names */
  name: string;
  /** http: plain CONNECT; https: CONNECT over TLS to the proxy; socks5: SOCKS5 CONNECT */
  protocol: ProxyProtocol;
  host: string;
  port: number;
  username: string | null;
  password: string | null;
  /** the operator named it as allowed on a private or loopback address */
  privateAddress: boolean;
}

export const PROXY_NAME = /^[a-z0-9][a-z0-9_-]{0,31}$/;

const DEFAULT_PORTS: Record<ProxyProtocol, number> = { http: 8080, https: 443, socks5: 1080 };

/** One `name=url` entry; throws with what is wrong. */
function parseEntry(entry: string, privateNames: ReadonlySet<string>): OutboundProxy {
  const equals = entry.indexOf('=');
  const name = entry.slice(0, equals).trim();
  const raw = entry.slice(equals + 1).trim();
  if (equals < 0 || !PROXY_NAME.test(name)) {
    throw new Error(`"${entry}" is not name=url with a name of a-z, 0-9, - and _ (at most 32), such as eu=http://proxy.example:3128`);
  }
  if (!URL.canParse(raw)) throw new Error(`${name}: "${raw}" is not a URL`);
  const url = new URL(raw);
  const protocol = url.protocol.slice(0, -1);
  if (protocol !== 'http' && protocol !== 'https' && protocol !== 'socks5') {
    throw new Error(`${name}: the scheme must be http, https or socks5`);
  }
  if ((url.pathname !== '/' && url.pathname !== '') || url.search || url.hash) throw new Error(`${name}: a proxy URL has no path`);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const proxy: OutboundProxy = {
    name,
    protocol,
    host,
    port: url.port === '' ? DEFAULT_PORTS[protocol] : Number(url.port),
    username: url.username === '' ? null : decodeURIComponent(url.username),
    password: url.password === '' ? null : decodeURIComponent(url.password),
    privateAddress: privateNames.has(name),
  };
  const refusal = proxy.privateAddress || !ipaddr.isValid(host) ? null : proxyAddressRefusal(host);
  if (refusal) throw new Error(`${name}: ${refusal}; name it in PAGEWATCH_PRIVATE_PROXIES to allow it`);
  return proxy;
}

/**
 * The proxies of `list` (comma-separated `name=url`); `privateList` names
 * those allowed on a private or loopback address. Throws with what is wrong.
 */
export function parseProxies(list: string, privateList: string): OutboundProxy[] {
  const split = (value: string) =>
    value
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  const privateNames = new Set(split(privateList));
  const proxies = split(list).map((entry) => parseEntry(entry, privateNames));
  const names = proxies.map((p) => p.name);
  const repeated = names.find((name, i) => names.indexOf(name) !== i);
  if (repeated) throw new Error(`the name ${repeated} is used twice`);
  const unknown = [...privateNames].find((name) => !names.includes(name));
  if (unknown) throw new Error(`PAGEWATCH_PRIVATE_PROXIES names ${unknown}, which is no proxy of PAGEWATCH_PROXIES`);
  return proxies;
}

/** Why a proxy may not be on this address unless the operator named it private, or null for a public address. */
export function proxyAddressRefusal(address: string): string | null {
  const parsed = ipaddr.process(address);
  const reason = metadataReason(parsed) ?? forbiddenReason(parsed);
  return reason ? `the proxy is on a ${reason}` : null;
}

/** The URL of a proxy without its credentials, for messages and logs. */
export function describeProxy(proxy: OutboundProxy): string {
  const host = proxy.host.includes(':') ? `[${proxy.host}]` : proxy.host;
  return `${proxy.name} (${proxy.protocol}://${host}:${proxy.port})`;
}
