import { createHash, randomBytes } from 'node:crypto';
import type { Clock } from '../clock.ts';
import { AppError } from '../errors.ts';
import type { Database } from '../store/database.ts';
import { findAccount } from '../store/accounts-store.ts';
import {
  clearSignInFailures,
  consumePasswordLink,
  countSignInFailures,
  deleteAccountSessions,
  deleteOldSignInFailures,
  findSignInAccount,
  findUsablePasswordLink,
  recordSignInFailure,
  replacePasswordLink,
  writePasswordHash,
} from '../store/dashboard-store.ts';
import { hashPassword, unusableHash, verifyPassword } from './password-hash.ts';

// How an account owner gets into the dashboard: the operator creates a
// one-time set-password link, the owner sets a password and signs in with it.

export interface OwnerAuthDeps {
  db: Database;
  clock: Clock;
  config: { publicUrl: string; passwordHashCost: number };
}

export const PASSWORD_LINK_HOURS = 24;
export const PASSWORD_MIN_LENGTH = 10;
export const PASSWORD_MAX_LENGTH = 200;

/** Failed sign-ins allowed per window: per account, and (higher, since people share addresses behind NAT) per client address. */
export const THROTTLE = { windowMinutes: 15, perAccount: 5, perAddress: 20 };

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** A new one-time link for the account; earlier unused links stop working. */
export async function createPasswordLink(deps: OwnerAuthDeps, accountId: string): Promise<{ url: string; expires_at: string }> {
  if (!(await findAccount(deps.db, accountId))) throw new AppError('not_found', 'account not found');
  const secret = randomBytes(32).toString('base64url');
  const now = deps.clock.now();
  const expiresAt = new Date(now.getTime() + PASSWORD_LINK_HOURS * 3_600_000);
  await deps.db.transaction((tx) =>
    replacePasswordLink(tx, { token_hash: sha256(secret), account_id: accountId, created_at: now, expires_at: expiresAt }),
  );
  return { url: `${deps.config.publicUrl}/set-password?token=${secret}`, expires_at: expiresAt.toISOString() };
}

/** The email of the account a link is for, or null when the link is unknown, used or expired. */
export async function passwordLinkEmail(deps: OwnerAuthDeps, secret: string): Promise<string | null> {
  const link = await findUsablePasswordLink(deps.db, sha256(secret), deps.clock.now());
  return link?.email ?? null;
}

export function passwordProblem(password: string): string | null {
  if (password.length < PASSWORD_MIN_LENGTH) return `use at least ${PASSWORD_MIN_LENGTH} characters`;
  if (password.length > PASSWORD_MAX_LENGTH) return `use at most ${PASSWORD_MAX_LENGTH} characters`;
  return null;
}

/**
 * Uses the link (once) to set the password. Every existing session of the
 * account ends, so a password reset also signs out whoever else was in.
 */
export async function setPasswordWithLink(deps: OwnerAuthDeps, secret: string, password: string): Promise<boolean> {
  const hash = await hashPassword(password, deps.config.passwordHashCost);
  const now = deps.clock.now();
  return deps.db.transaction(async (tx) => {
    const accountId = await consumePasswordLink(tx, sha256(secret), now);
    if (!accountId) return false;
    await writePasswordHash(tx, accountId, hash, now);
    await deleteAccountSessions(tx, accountId);
    return true;
  });
}

export type SignInResult =
  { ok: true; accountId: string } | { ok: false; reason: 'invalid' } | { ok: false; reason: 'throttled'; retryAfterMinutes: number };

/** Checks email and password, with failures throttled per account and per client address. */
export async function signIn(deps: OwnerAuthDeps, input: { email: string; password: string; address: string }): Promise<SignInResult> {
  const email = input.email.trim().toLowerCase();
  const accountKey = `account:${email}`;
  const keys = [accountKey, `ip:${input.address}`];
  const now = deps.clock.now();
  const windowMs = THROTTLE.windowMinutes * 60_000;
  const since = new Date(now.getTime() - windowMs);
  const failures = await countSignInFailures(deps.db, keys, since);
  const blocking = failures.filter((f) => f.count >= (f.key === accountKey ? THROTTLE.perAccount : THROTTLE.perAddress));
  if (blocking.length > 0) {
    const freeAt = Math.max(...blocking.map((f) => f.oldest.getTime() + windowMs));
    return { ok: false, reason: 'throttled', retryAfterMinutes: Math.max(1, Math.ceil((freeAt - now.getTime()) / 60_000)) };
  }
  const account = await findSignInAccount(deps.db, email);
  const matches = await verifyPassword(input.password, account?.password_hash ?? unusableHash(deps.config.passwordHashCost));
  if (!account || !account.password_hash || !matches) {
    await deleteOldSignInFailures(deps.db, since);
    await recordSignInFailure(deps.db, keys, now);
    return { ok: false, reason: 'invalid' };
  }
  await clearSignInFailures(deps.db, accountKey);
  return { ok: true, accountId: account.id };
}
