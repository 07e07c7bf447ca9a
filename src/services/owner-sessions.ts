import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../clock.ts';
import { isPlanName, type Plans } from '../domain/plans.ts';
import { SCOPES } from '../domain/scopes.ts';
import type { Database } from '../store/database.ts';
import { deleteExpiredSessions, deleteSession, extendSession, findLiveSession, insertSession } from '../store/dashboard-store.ts';
import type { Principal } from './tokens.ts';

// Dashboard sessions. The cookie carries a random secret; the store keeps only
// its SHA-256, so a leaked database cannot be replayed as a session. Sessions
// expire after 12 idle hours and at the latest 7 days after sign-in.

export const SESSION_IDLE_MS = 12 * 3_600_000;
export const SESSION_MAX_MS = 7 * 86_400_000;
// Sliding expiry is written at most this often, not on every page view.
const EXTEND_AFTER_MS = 5 * 60_000;

/** Marks principals that come from a dashboard session rather than an API token. */
export const DASHBOARD_TOKEN_ID = 'dashboard-session';

export interface SessionDeps {
  db: Database;
  clock: Clock;
  config: { plans: Plans };
}

export interface Owner {
  accountId: string;
  email: string;
  /** an owner acting in the dashboard: every scope, the account's current plan */
  principal: Principal;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

export async function startSession(deps: SessionDeps, accountId: string): Promise<{ secret: string; maxAgeSeconds: number }> {
  const now = deps.clock.now();
  const secret = newSecret();
  await deleteExpiredSessions(deps.db, now);
  await insertSession(deps.db, {
    id_hash: sha256(secret),
    account_id: accountId,
    created_at: now,
    expires_at: new Date(now.getTime() + SESSION_IDLE_MS),
    absolute_expires_at: new Date(now.getTime() + SESSION_MAX_MS),
  });
  return { secret, maxAgeSeconds: SESSION_MAX_MS / 1000 };
}

/** The signed-in owner for a session secret, or null when it is unknown or expired. */
export async function resolveSession(deps: SessionDeps, secret: string): Promise<Owner | null> {
  const now = deps.clock.now();
  const idHash = sha256(secret);
  const row = await findLiveSession(deps.db, idHash, now);
  if (!row || !isPlanName(row.plan)) return null;
  const idleExpiry = Math.min(now.getTime() + SESSION_IDLE_MS, row.absolute_expires_at.getTime());
  if (idleExpiry - row.expires_at.getTime() > EXTEND_AFTER_MS) await extendSession(deps.db, idHash, new Date(idleExpiry));
  return {
    accountId: row.account_id,
    email: row.email,
    principal: {
      accountId: row.account_id,
      tokenId: DASHBOARD_TOKEN_ID,
      scopes: [...SCOPES],
      planName: row.plan,
      plan: deps.config.plans[row.plan],
    },
  };
}

export async function endSession(deps: SessionDeps, secret: string): Promise<void> {
  await deleteSession(deps.db, sha256(secret));
}

/**
 * The synchronizer token of a session (or of a signed-out visitor's pre-session
 * secret): derived from the cookie's secret, so it needs no storage, differs
 * per session and cannot be computed by a page that cannot read the cookie.
 */
export function csrfTokenFor(secret: string): string {
  return createHmac('sha256', secret).update('pagewatch dashboard csrf').digest('base64url');
}

export function csrfTokenMatches(secret: string, submitted: unknown): boolean {
  if (typeof submitted !== 'string') return false;
  const expected = Buffer.from(csrfTokenFor(secret));
  const actual = Buffer.from(submitted);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
