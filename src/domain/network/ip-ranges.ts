import ipaddr from 'ipaddr.js';

// Which IP addresses a page load may never reach, and why. The tables are our
// own (not ipaddr.js's range() names) so that every refused range is visible
// here, with the reason a log or a check issue will show.

type IP = ipaddr.IPv4 | ipaddr.IPv6;
type Cidr = [IP, number];

interface Range {
  cidr: Cidr;
  why: string;
}

function table(rows: Array<[string, string]>): Range[] {
  return rows.map(([cidr, why]) => ({ cidr: ipaddr.parseCIDR(cidr), why }));
}

// Checked in order, so a more specific entry names the reason first.
const IPV4: Range[] = table([
  ['0.0.0.0/8', 'unspecified ("this network", 0.0.0.0/8)'],
  ['10.0.0.0/8', 'private (RFC 1918)'],
  ['100.64.0.0/10', 'shared CGNAT space (100.64.0.0/10)'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local'],
  ['172.16.0.0/12', 'private (RFC 1918)'],
  ['192.0.0.0/24', 'IETF protocol assignments (192.0.0.0/24)'],
  ['192.0.2.0/24', 'documentation (TEST-NET-1)'],
  ['192.88.99.0/24', '6to4 relay anycast (deprecated)'],
  ['192.168.0.0/16', 'private (RFC 1918)'],
  ['198.18.0.0/15', 'benchmarking (198.18.0.0/15)'],
  ['198.51.100.0/24', 'documentation (TEST-NET-2)'],
  ['203.0.113.0/24', 'documentation (TEST-NET-3)'],
  ['224.0.0.0/4', 'multicast'],
  ['255.255.255.255/32', 'limited broadcast'],
  ['240.0.0.0/4', 'reserved (future use, 240.0.0.0/4)'],
]);

// IPv6 forms that carry an IPv4 address: the form itself is refused, and the
// embedded address is extracted so the reason (and the operator's trust list)
// can speak about the IPv4 host really addressed.
interface EmbeddingRange extends Range {
  extract(addr: ipaddr.IPv6): ipaddr.IPv4;
}

const low32 = (a: ipaddr.IPv6) => new ipaddr.IPv4(a.toByteArray().slice(12, 16));
// 6to4 (RFC 3056) puts the IPv4 address in bits 16..47.
const sixToFour = (a: ipaddr.IPv6) => new ipaddr.IPv4(a.toByteArray().slice(2, 6));

const EMBEDDING: EmbeddingRange[] = (
  [
    ['::ffff:0:0/96', 'IPv4-mapped address', low32],
    ['::ffff:0:0:0/96', 'IPv4-translated address (RFC 6145)', low32],
    ['64:ff9b::/96', 'NAT64 address (64:ff9b::/96)', low32],
    // Local-use NAT64 prefixes may be /48../96; the last 32 bits are what a /96
    // deployment (and every SSRF payload) uses, and the whole block is refused anyway.
    ['64:ff9b:1::/48', 'local-use NAT64 address (64:ff9b:1::/48)', low32],
    ['2002::/16', '6to4 address', sixToFour],
    // Checked after :: and ::1 (SPECIAL_V6_HOSTS), so only true compat forms land here.
    ['::/96', 'IPv4-compatible address (deprecated)', low32],
  ] as Array<[string, string, EmbeddingRange['extract']]>
).map(([cidr, why, extract]) => ({ cidr: ipaddr.parseCIDR(cidr), why, extract }));

// Inside ::/96 but not IPv4-compatible addresses: judged before EMBEDDING.
const SPECIAL_V6_HOSTS: Range[] = table([
  ['::/128', 'unspecified (::)'],
  ['::1/128', 'loopback'],
]);

const IPV6: Range[] = table([
  ['100::/64', 'discard-only (100::/64)'],
  ['2001::/32', 'Teredo'],
  ['2001:2::/48', 'benchmarking (2001:2::/48)'],
  ['2001:10::/28', 'ORCHID (deprecated)'],
  ['2001:20::/28', 'ORCHIDv2'],
  ['2001::/23', 'IETF protocol assignments (2001::/23)'],
  ['2001:db8::/32', 'documentation (2001:db8::/32)'],
  ['3fff::/20', 'documentation (3fff::/20)'],
  ['fc00::/7', 'unique-local (fc00::/7)'],
  ['fe80::/10', 'link-local'],
  ['fec0::/10', 'site-local (deprecated)'],
  ['ff00::/8', 'multicast'],
]);

// Everything public on the IPv6 internet is in 2000::/3; the rest is reserved.
const GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3');

// Metadata services answer on these; refused even inside an operator-trusted range.
const METADATA = new Set([
  '169.254.169.254', // AWS, GCP, Azure, DigitalOcean, OpenStack, Hetzner, Oracle…
  '169.254.170.2', // AWS ECS task credentials
  '169.254.170.23', // AWS EKS pod identity
  '169.254.0.23', // Tencent Cloud
  '100.100.100.200', // Alibaba Cloud
  '192.0.0.192', // Oracle Cloud (classic)
  '168.63.129.16', // Azure WireServer (a public address, reachable only from Azure VMs)
  'fd00:ec2::254', // AWS IMDS over IPv6
  'fd00:ec2::23', // AWS EKS pod identity over IPv6
]);

/** Whether an address falls in a CIDR, comparing like with like (IPv4 with IPv4). */
export function inCidr(addr: IP, cidr: Cidr): boolean {
  return addr.kind() === cidr[0].kind() && addr.match(cidr);
}

const IPV4_MAPPED = ipaddr.parseCIDR('::ffff:0:0/96');

/**
 * The IPv4 host an IPv4-mapped address (::ffff:a.b.c.d) reaches: a dual-stack
 * socket connects to that very IPv4 address. Other embedding forms (NAT64,
 * 6to4, compat) are routed to a translator or relay elsewhere on a real
 * network, so they never count as their embedded address.
 */
export function mappedIPv4(addr: IP): ipaddr.IPv4 | null {
  return addr.kind() === 'ipv6' && inCidr(addr, IPV4_MAPPED) ? low32(addr as ipaddr.IPv6) : null;
}

/** The IPv4 address an IPv6 address embeds (mapped, NAT64, 6to4, compat), if any. */
export function embeddedIPv4(addr: IP): ipaddr.IPv4 | null {
  if (addr.kind() !== 'ipv6') return null;
  const v6 = addr as ipaddr.IPv6;
  if (SPECIAL_V6_HOSTS.some((r) => inCidr(v6, r.cidr))) return null;
  const form = EMBEDDING.find((r) => inCidr(v6, r.cidr));
  return form ? form.extract(v6) : null;
}

/** Why a cloud-metadata address is refused, or null. */
export function metadataReason(addr: IP): string | null {
  const embedded = embeddedIPv4(addr);
  const candidates = [addr, ...(embedded ? [embedded] : [])];
  const hit = candidates.find((a) => METADATA.has(a.kind() === 'ipv6' ? (a as ipaddr.IPv6).toRFC5952String() : a.toString()));
  return hit ? `cloud metadata address ${hit.toString()}` : null;
}

function ipv4Reason(addr: ipaddr.IPv4): string | null {
  return IPV4.find((r) => inCidr(addr, r.cidr))?.why ?? null;
}

/** Why an address is in a forbidden range, or null for a public unicast address. */
export function forbiddenReason(addr: IP): string | null {
  if (addr.kind() === 'ipv4') {
    const why = ipv4Reason(addr as ipaddr.IPv4);
    return why ? `${why} address ${addr.toString()}` : null;
  }
  const v6 = addr as ipaddr.IPv6;
  const shown = v6.toRFC5952String();
  const host = SPECIAL_V6_HOSTS.find((r) => inCidr(v6, r.cidr));
  if (host) return `${host.why} address ${shown}`;
  const form = EMBEDDING.find((r) => inCidr(v6, r.cidr));
  if (form) {
    const v4 = form.extract(v6);
    return `${form.why} ${shown} embedding ${v4.toString()} (${ipv4Reason(v4) ?? 'public'})`;
  }
  const range = IPV6.find((r) => inCidr(v6, r.cidr));
  if (range) return `${range.why} address ${shown}`;
  if (!inCidr(v6, GLOBAL_UNICAST)) return `reserved address ${shown} (outside 2000::/3)`;
  return null;
}
