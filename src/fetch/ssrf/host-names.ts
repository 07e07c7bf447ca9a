// Host names refused before any DNS query: names that by convention or by
// local configuration (/etc/hosts, search domains, mDNS, split-horizon DNS)
// lead to this machine, its network or a cloud metadata service. Addresses
// that public names resolve to are judged separately, after resolution.

// Special-use and never-delegated top-level names (RFC 6761, 6762, 7686,
// 8375, ICANN name-collision list) and common private-network suffixes.
const SUFFIXES = [
  'localhost',
  'localdomain',
  'local',
  'internal',
  'intranet',
  'lan',
  'home',
  'corp',
  'arpa', // home.arpa (RFC 8375) and reverse-DNS names
  'test',
  'invalid',
  'example',
  'onion',
];

// Metadata host names outside the suffixes above.
const METADATA_NAMES = new Set(['metadata.goog', 'metadata.tencentyun.com']);

/**
 * Why a host name (WHATWG-normalised: ASCII, lower case, punycode) is refused,
 * or null when it may be resolved and its addresses judged.
 */
export function hostNameReason(hostname: string): string | null {
  // "localhost." and "localhost" are the same name; judge it without the root dot.
  const name = hostname.toLowerCase().replace(/\.+$/, '');
  if (name === '') return 'empty host name';
  if (METADATA_NAMES.has(name) || /^metadata\..*\.internal$/.test(name)) return `cloud metadata host name "${name}"`;
  const tld = name.slice(name.lastIndexOf('.') + 1);
  if (SUFFIXES.includes(tld)) return `host name "${name}" is in the local-only domain .${tld}`;
  // A dotless name is completed with the local search domains (resolv.conf),
  // which is how "metadata", "ip6-localhost" or "kubernetes" reach inside.
  if (!name.includes('.')) return `single-label host name "${name}" resolves locally`;
  return null;
}
