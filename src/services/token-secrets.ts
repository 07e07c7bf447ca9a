import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

// A token is `pwk_` + 32 random bytes (base64url): recognisable in logs and
// secret scanners, and only its SHA-256 is ever stored.
const PREFIX = 'pwk_';
const TOKEN_PATTERN = /^pwk_[A-Za-z0-9_-]{43}$/;

export function generateTokenSecret(): string {
  return PREFIX + randomBytes(32).toString('base64url');
}

// A feed token is `pwf_` + 32 random bytes: it stands in feed URLs, so its own
// prefix tells it apart from API tokens and the log redaction knows its shape.
const FEED_PREFIX = 'pwf_';
const FEED_TOKEN_PATTERN = /^pwf_[A-Za-z0-9_-]{43}$/;

export function generateFeedTokenSecret(): string {
  return FEED_PREFIX + randomBytes(32).toString('base64url');
}

export function looksLikeFeedToken(value: string): boolean {
  return FEED_TOKEN_PATTERN.test(value);
}

export function hashTokenSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

export function looksLikeToken(value: string): boolean {
  return TOKEN_PATTERN.test(value);
}

/** Compares two hex digests in constant time. */
export function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}

/** Compares two secrets of any length without leaking where they differ. */
export function sameSecret(a: string, b: string): boolean {
  return sameHash(hashTokenSecret(a), hashTokenSecret(b));
}
