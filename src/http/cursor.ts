import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { AppError } from '../errors.ts';
import { canonicalJson } from '../domain/canonical-json.ts';
import { MAX_CURSOR_LENGTH } from '../schemas/common.ts';

// Cursors are opaque to callers: base64url of a keyset position plus a
// fingerprint of the filters they were made for, sealed with a keyed HMAC so a
// tampered or forged cursor is refused instead of repositioning a traversal.

const digest = (text: string, length: number) => createHash('sha256').update(text).digest('base64url').slice(0, length);

function malformed(): AppError {
  return new AppError(
    'malformed_cursor',
    'the cursor is malformed or was made for other filters; pass meta.next_cursor unchanged with the same filters',
  );
}

/**
 * Seals and opens list cursors with an HMAC keyed by a secret of the store
 * (server_secrets), so only this installation can make a cursor that opens.
 */
export class Cursors {
  readonly #key: Buffer;

  constructor(key: Buffer) {
    this.#key = key;
  }

  #seal(body: string): string {
    return createHmac('sha256', this.#key).update(body).digest('base64url').slice(0, 22);
  }

  encode(position: Record<string, string>, filters: Record<string, unknown>): string {
    const body = JSON.stringify({ p: position, f: digest(canonicalJson(filters), 12) });
    return `${Buffer.from(body).toString('base64url')}.${this.#seal(body)}`;
  }

  /** The keyset position of a cursor this server made for exactly these filters; 400 malformed_cursor otherwise. */
  decode<K extends string>(raw: string, filters: Record<string, unknown>, keys: readonly K[]): Record<K, string> {
    if (raw.length > MAX_CURSOR_LENGTH) throw malformed();
    const [encoded, seal, extra] = raw.split('.');
    if (!encoded || !seal || extra !== undefined) throw malformed();
    const body = Buffer.from(encoded, 'base64url').toString('utf8');
    const expected = Buffer.from(this.#seal(body));
    const given = Buffer.from(seal);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw malformed();
    let parsed: { p?: Record<string, unknown>; f?: unknown };
    try {
      parsed = JSON.parse(body) as typeof parsed;
    } catch {
      throw malformed();
    }
    if (parsed.f !== digest(canonicalJson(filters), 12) || typeof parsed.p !== 'object' || parsed.p === null) throw malformed();
    const position = {} as Record<K, string>;
    for (const key of keys) {
      const value = parsed.p[key];
      if (typeof value !== 'string') throw malformed();
      position[key] = value;
    }
    return position;
  }
}
