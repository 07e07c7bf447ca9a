import type { Static } from '@sinclair/typebox';
import type { CreateTokenBody, CreatedTokenSchema, TokenViewSchema } from '../schemas/admin.ts';
import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.ts';
import { AppError } from '../errors.ts';
import type { Plan, PlanName, Plans } from '../domain/plans.ts';
import { isPlanName } from '../domain/plans.ts';
import type { Database } from '../store/database.ts';
import { lockAccount } from '../store/accounts-store.ts';
import {
  countActiveTokens,
  insertToken,
  listTokens,
  revokeToken,
  touchToken,
  TOUCH_INTERVAL_SECONDS,
  type TokenRow,
  type TokenWithAccount,
} from '../store/tokens-store.ts';
import type { ApiAccess } from './api-access.ts';
import { generateTokenSecret, hashTokenSecret, looksLikeToken, sameHash } from './token-secrets.ts';

type TokenState = TokenView['state'];

export type TokenView = Static<typeof TokenViewSchema>;
export type CreateTokenInput = Static<typeof CreateTokenBody>;
export type CreatedToken = Static<typeof CreatedTokenSchema>;

/** Who is calling: resolved from a bearer token on every request. */
export interface Principal {
  accountId: string;
  tokenId: string;
  scopes: string[];
  planName: PlanName;
  plan: Plan;
}

export interface TokenDeps {
  db: Database;
  clock: Clock;
  config: { plans: Plans };
  access: ApiAccess;
}

function stateOf(row: TokenRow, plan: Plan, at: Date): TokenState {
  if (row.revoked_at) return 'revoked';
  if (row.expires_at <= at) return 'expired';
  return plan.api_access ? 'valid' : 'disabled';
}

function view(row: TokenRow, plan: Plan, at: Date): TokenView {
  return {
    id: row.id,
    name: row.name,
    scopes: row.scopes,
    hint: row.token_hint,
    state: stateOf(row, plan, at),
    created_at: row.created_at.toISOString(),
    expires_at: row.expires_at.toISOString(),
    revoked_at: row.revoked_at?.toISOString() ?? null,
    last_used_at: row.last_used_at?.toISOString() ?? null,
  };
}

export async function createToken(deps: TokenDeps, accountId: string, input: CreateTokenInput): Promise<CreatedToken> {
  const now = deps.clock.now();
  return deps.db.transaction(async (tx) => {
    // The account row lock makes the active-token limit exact under concurrency.
    const account = await lockAccount(tx, accountId);
    if (!account) throw new AppError('not_found', 'account not found');
    const plan = deps.config.plans[account.plan as PlanName];
    if (!plan.api_access) throw new AppError('pro_required', 'API tokens require the Pro plan');
    const active = await countActiveTokens(tx, accountId, now);
    if (active >= plan.tokens) {
      throw new AppError('allowance_exhausted', `at most ${plan.tokens} active tokens per account; revoke one first`);
    }
    const secret = generateTokenSecret();
    const id = randomUUID();
    const expiresAt = new Date(now.getTime() + input.expires_in_days * 86_400_000);
    await insertToken(tx, {
      id,
      account_id: accountId,
      name: input.name,
      scopes: [...new Set(input.scopes)],
      token_hash: hashTokenSecret(secret),
      token_hint: secret.slice(0, 8),
      created_at: now,
      expires_at: expiresAt,
    });
    return { id, token: secret, expires_at: expiresAt.toISOString() };
  });
}

export async function listAccountTokens(deps: TokenDeps, accountId: string, planName: PlanName): Promise<TokenView[]> {
  const now = deps.clock.now();
  const rows = await listTokens(deps.db, accountId);
  return rows.map((row) => view(row, deps.config.plans[planName], now));
}

export async function revokeTokenById(deps: TokenDeps, tokenId: string): Promise<boolean> {
  const accountId = await revokeToken(deps.db, tokenId, deps.clock.now());
  // Refused at once here; other processes hear of it from the store (migration 010).
  if (accountId) deps.access.invalidateAccount(accountId);
  return accountId !== null;
}

const UNAUTHORIZED = 'missing, invalid, expired or revoked bearer token';

/**
 * Resolves the Authorization header to a principal, in the order the API
 * answers: 503 while the API is closed, whatever the token; then the same 401
 * for every token failure, so callers cannot tell a revoked token from a
 * made-up one. A closed API's error names the principal when the token is
 * valid, so that its answer still carries the account's limit headers.
 */
export async function authenticate(deps: TokenDeps, authorization: string | undefined): Promise<Principal> {
  const secret = /^Bearer ([^\s]+)$/i.exec(authorization?.trim() ?? '')?.[1];
  const hash = secret !== undefined && looksLikeToken(secret) ? hashTokenSecret(secret) : null;
  const { status, token: row } = await deps.access.lookup(hash);
  const now = deps.clock.now();
  const principal = hash !== null && row !== null ? principalOf(deps, row, hash, now) : null;
  if (!status.open) throw new ApiClosed(status.retry_after_seconds, principal);
  if (!principal || !row || !hash) throw new AppError('unauthorized', UNAUTHORIZED);
  // Expiry is judged on the cached expires_at with the app clock; last_used_at is written at most once a
  // minute per token and process, so most requests skip the round trip, not just the write.
  if (!row.last_used_at || now.getTime() - row.last_used_at.getTime() > TOUCH_INTERVAL_SECONDS * 1000) {
    await touchToken(deps.db, row.id, now);
    deps.access.noteUsed(hash, now);
  }
  return principal;
}

/** The caller a stored token names, or null when the token may not be used now. */
function principalOf(deps: TokenDeps, row: TokenWithAccount, hash: string, now: Date): Principal | null {
  if (!sameHash(row.token_hash, hash) || row.revoked_at || row.expires_at <= now || !isPlanName(row.plan)) return null;
  return { accountId: row.account_id, tokenId: row.id, scopes: row.scopes, planName: row.plan, plan: deps.config.plans[row.plan] };
}

/** 503 while the API is closed; `principal` is the caller when its token is valid (null: none identified). */
export class ApiClosed extends AppError {
  constructor(
    retryAfter: number,
    readonly principal: Principal | null,
  ) {
    super('unavailable', 'the API is closed for maintenance', { retryAfter });
  }
}
