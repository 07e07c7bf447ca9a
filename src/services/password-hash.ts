import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { PASSWORD_HASH_COST } from '../config.ts';

// Owner passwords: scrypt with a random per-password salt. The parameters are
// stored in the hash, so the cost can be raised later without breaking old hashes.

const R = 8;
const P = 1;
const KEY_LENGTH = 32;
// The most memory a stored hash may make scrypt use: what the highest cost needs.
const MAX_N_TIMES_R = 2 ** PASSWORD_HASH_COST.max * R;

function derive(password: string, salt: Buffer, options: Required<Pick<ScryptOptions, 'N' | 'r' | 'p'>>): Promise<Buffer> {
  // scrypt needs 128·N·r bytes; twice that leaves headroom over what it asks for.
  const maxmem = 2 * 128 * options.N * options.r;
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, { ...options, maxmem }, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

/** Parameters scrypt takes (N a power of two) within the memory the highest cost needs. */
function usable({ N, r, p }: { N: number; r: number; p: number }): boolean {
  return Number.isInteger(N) && N >= 2 && (N & (N - 1)) === 0 && r >= 1 && p >= 1 && p <= 16 && N * r <= MAX_N_TIMES_R;
}

/** The hash of `password` at scrypt N = 2^`cost`, with its parameters and salt. */
export async function hashPassword(password: string, cost: number): Promise<string> {
  const salt = randomBytes(16);
  const N = 2 ** cost;
  const key = await derive(password, salt, { N, r: R, p: P });
  return ['scrypt', N, R, P, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** Verifies in constant time at the stored hash's own parameters; a malformed stored hash never verifies. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, key] = stored.split('$');
  const params = { N: Number(n), r: Number(r), p: Number(p) };
  if (scheme !== 'scrypt' || !salt || !key || !usable(params)) return false;
  const expected = Buffer.from(key, 'base64url');
  const actual = await derive(password, Buffer.from(salt, 'base64url'), params);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/**
 * A hash no password matches, at `cost`, verified when the account is unknown
 * or has no password yet, so a failed sign-in takes the same time either way.
 */
export function unusableHash(cost: number): string {
  return ['scrypt', 2 ** cost, R, P, randomBytes(16).toString('base64url'), randomBytes(KEY_LENGTH).toString('base64url')].join('$');
}
