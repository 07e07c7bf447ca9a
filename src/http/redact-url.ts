// What a logged URL may not show: the value of a parameter named like a
// credential — in the query or as a ";name=value" path parameter, however the
// name is written (brackets, percent-encoding, NULs, case, camelCase) — and
// anything shaped like a secret pagewatch issues (API tokens "pwk_…", feed
// tokens "pwf_…" in feed URLs, and the 43-character base64url of 32 random
// bytes that password links and sessions use), wherever it stands.

const CREDENTIAL_WORDS = new Set([
  'token',
  'key',
  'apikey',
  'secret',
  'password',
  'passwd',
  'pwd',
  'sig',
  'signature',
  'auth',
  'authorization',
  'session',
  'sid',
  'code',
  'credential',
  'jwt',
  'otp',
]);
// Names glued together without a separator ("accesstoken", "PHPSESSID").
const CREDENTIAL_ENDING = /(token|secret|password|passwd|signature|apikey|credential|sessid|sessionid)s?$/;
const SECRET_SHAPE = /pw[a-z]_[A-Za-z0-9_-]{16,}|(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/;
const REDACTED = '[redacted]';

/** Percent-decoding byte by byte, repeated for double encodings; it never throws on a stray "%". */
function decoded(text: string): string {
  let current = text.replace(/\+/g, ' ');
  for (let round = 0; round < 4; round++) {
    const next = current.replace(/%([0-9a-f]{2})/gi, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    if (next === current) break;
    current = next;
  }
  return current;
}

function isCredentialName(rawName: string): boolean {
  const words = decoded(rawName)
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  return words.some((w) => CREDENTIAL_WORDS.has(w) || CREDENTIAL_WORDS.has(w.replace(/s$/, ''))) || CREDENTIAL_ENDING.test(words.join(''));
}

const looksSecret = (text: string): boolean => SECRET_SHAPE.test(decoded(text));

/** One "name=value" (or bare "value") of a query or a path segment's parameters. */
function redactPair(pair: string): string {
  const eq = pair.indexOf('=');
  if (eq === -1) return looksSecret(pair) ? REDACTED : pair;
  const name = pair.slice(0, eq);
  if (looksSecret(name)) return REDACTED;
  return isCredentialName(name) || looksSecret(pair.slice(eq + 1)) ? `${name}=${REDACTED}` : pair;
}

function redactPathSegment(segment: string): string {
  const [head = '', ...parameters] = segment.split(';');
  return [looksSecret(head) ? REDACTED : head, ...parameters.map(redactPair)].join(';');
}

/** The URL (a request target: path and query) as it may be logged. */
export function redactUrl(url: string): string {
  const mark = url.indexOf('?');
  const path = (mark === -1 ? url : url.slice(0, mark)).split('/').map(redactPathSegment).join('/');
  if (mark === -1) return path;
  const query = url
    .slice(mark + 1)
    .split('&')
    .map(redactPair)
    .join('&');
  return `${path}?${query}`;
}
