import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { hostNameReason } from './host-names.ts';
import { forbiddenReason, metadataReason } from '../../domain/network/ip-ranges.ts';
import { isTrusted, isValidPort, type GuardPolicy } from '../../domain/network/guard-policy.ts';

// The SSRF guard (DESIGN §5). Every outbound page load and webhook goes through
// it twice: vetUrl before anything happens (static checks on the parsed URL),
// then resolveAndVet at connect time on the addresses DNS actually returned,
// so the socket is opened to an address that was judged.

export { guardPolicy, DEFAULT_ALLOW_PORTS, type GuardPolicy } from '../../domain/network/guard-policy.ts';

export class GuardError extends Error {
  /** why the URL or address was refused, e.g. "loopback address 127.0.0.1" */
  readonly reason: string;
  constructor(reason: string) {
    super(`blocked by the SSRF guard: ${reason}`);
    this.name = 'GuardError';
    this.reason = reason;
  }
}

export type Verdict = { ok: true } | { ok: false; reason: string };

/** DNS resolution used by resolveAndVet; tests pass a fake one. */
export type LookupFn = (hostname: string) => Promise<Array<{ address: string; family: number }>>;

/** The system resolver (getaddrinfo: /etc/hosts, then DNS), every answer. */
export const systemLookup: LookupFn = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

const SCHEMES = new Set(['http:', 'https:']);
// C0 controls and DEL are stripped or rejected inconsistently by URL parsers,
// and a backslash is a slash to WHATWG but not to every other parser: refusing
// them keeps one reading of the URL.
const CONFUSING = /[\u0000-\u001f\u007f\\]/;

function refuse(reason: string): { ok: false; reason: string } {
  return { ok: false, reason };
}

/**
 * Whether the authority contains userinfo. WHATWG drops an empty userinfo
 * ("http://@host/") from username/password, so the raw text is checked too.
 */
function hasUserinfo(raw: string, url: URL): boolean {
  if (url.username !== '' || url.password !== '') return true;
  const afterScheme = raw.slice(raw.indexOf(':') + 1).replace(/^\/*/, '');
  return /^[^/?#]*@/.test(afterScheme);
}

/** The port a connection to this URL uses. */
export function effectivePort(url: URL): number {
  if (url.port !== '') return Number(url.port);
  return url.protocol === 'https:' ? 443 : 80;
}

/** The IP literal a WHATWG host denotes, or null for a name. */
function ipLiteral(hostname: string): string | null {
  if (hostname.startsWith('[') && hostname.endsWith(']')) return hostname.slice(1, -1);
  return isIP(hostname) === 4 ? hostname : null;
}

/**
 * Judges an address the connection would use. Cloud-metadata addresses are
 * refused always; an operator-trusted address is allowed on any port; other
 * addresses must be public unicast and use an allowed port.
 */
export function isAddressAllowed(address: string, port: number, policy: GuardPolicy): Verdict {
  // Only canonical literals: "0177.0.0.1" means different things to different parsers.
  if (isIP(address) === 0 || address.includes('%')) return refuse(`not a plain IP address: ${address}`);
  if (!isValidPort(port)) return refuse(`invalid port ${port}`);
  const addr = ipaddr.parse(address);
  const metadata = metadataReason(addr);
  if (metadata) return refuse(metadata);
  if (isTrusted(addr, policy)) return { ok: true };
  const forbidden = forbiddenReason(addr);
  if (forbidden) return refuse(forbidden);
  if (!policy.allowPorts.includes(port)) return refuse(`port ${port} is not allowed`);
  return { ok: true };
}

/**
 * Static checks on a URL, before any DNS query or connection. Never throws.
 * A host name passes only the name rules here; its addresses are judged by
 * resolveAndVet when connecting.
 */
export function vetUrl(raw: string, policy: GuardPolicy): { ok: true; url: URL } | { ok: false; reason: string } {
  if (typeof raw !== 'string') return refuse('URL is not a string');
  if (CONFUSING.test(raw)) return refuse('URL contains a backslash or a control character');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return refuse('not a valid absolute URL');
  }
  if (!SCHEMES.has(url.protocol)) return refuse(`scheme ${url.protocol} is not allowed (only http and https)`);
  if (hasUserinfo(raw, url)) return refuse('URL contains userinfo (user:password@)');
  const port = effectivePort(url);
  const literal = ipLiteral(url.hostname);
  if (literal !== null) {
    const verdict = isAddressAllowed(literal, port, policy);
    return verdict.ok ? { ok: true, url } : verdict;
  }
  const nameReason = hostNameReason(url.hostname);
  if (nameReason) return refuse(nameReason);
  // Without trusted networks no address can make another port acceptable.
  if (!policy.allowPorts.includes(port) && policy.trustedCidrs.length === 0) {
    return refuse(`port ${port} is not allowed`);
  }
  return { ok: true, url };
}

/** A host as WHATWG reads it (IDN mapping, IPv4 number forms), or null if invalid. */
function normaliseHost(hostname: string): string | null {
  try {
    const bracketed = isIP(hostname) === 6 ? `[${hostname}]` : hostname;
    return new URL(`http://${bracketed}/`).hostname;
  } catch {
    return null;
  }
}

/**
 * Resolves a host once and judges every answer: if any address is forbidden
 * the host is refused (a name that answers both public and private addresses
 * is a rebinding setup). Returns the address to connect to.
 * Throws GuardError when refused; a DNS failure rejects with the resolver's error.
 */
export async function resolveAndVet(
  hostname: string,
  port: number,
  policy: GuardPolicy,
  lookup: LookupFn = systemLookup,
): Promise<{ address: string; family: 4 | 6 }> {
  const host = normaliseHost(hostname);
  if (host === null) throw new GuardError(`invalid host ${JSON.stringify(hostname)}`);
  const literal = ipLiteral(host);
  if (literal !== null) {
    const verdict = isAddressAllowed(literal, port, policy);
    if (!verdict.ok) throw new GuardError(verdict.reason);
    return { address: literal, family: isIP(literal) === 6 ? 6 : 4 };
  }
  const nameReason = hostNameReason(host);
  if (nameReason) throw new GuardError(nameReason);
  const answers = await lookup(host);
  const [first] = answers;
  if (first === undefined) {
    throw Object.assign(new Error(`no addresses for ${host}`), { code: 'ENOTFOUND' });
  }
  for (const answer of answers) {
    const verdict = isAddressAllowed(answer.address, port, policy);
    if (!verdict.ok) throw new GuardError(`${host} resolves to ${verdict.reason}`);
  }
  return { address: first.address, family: isIP(first.address) === 6 ? 6 : 4 };
}
