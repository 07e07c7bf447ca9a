import { AppError } from '../errors.ts';
import type { ApiStatus } from './api-status-store.ts';
import type { Queryable } from './database.ts';

export interface TokenRow {
  id: string;
  account_id: string;
  name: string;
  scopes: string[];
  token_hash: string;
  token_hint: string;
  created_at: Date;
  expires_at: Date;
  revoked_at: Date | null;
  last_used_at: Date | null;
}

export interface TokenWithAccount extends TokenRow {
  email: string;
  plan: string;
}

export async function insertToken(db: Queryable, row: Omit<TokenRow, 'revoked_at' | 'last_used_at'>): Promise<void> {
  await db.query(
    `INSERT INTO api_tokens (id, account_id, name, scopes, token_hash, token_hint, created_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [row.id, row.account_id, row.name, row.scopes, row.token_hash, row.token_hint, row.created_at, row.expires_at],
  );
}

export async function countActiveTokens(db: Queryable, accountId: string, at: Date): Promise<number> {
  const rows = await db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM api_tokens WHERE account_id = $1 AND revoked_at IS NULL AND expires_at > $2',
    [accountId, at],
  );
  // count(*) always returns one row
  return rows[0]?.n ?? 0;
}

export async function listTokens(db: Queryable, accountId: string): Promise<TokenRow[]> {
  return db.query<TokenRow>('SELECT * FROM api_tokens WHERE account_id = $1 ORDER BY created_at DESC, id DESC', [accountId]);
}

/**
 * The token with this hash (null when none, or when hash is null) and the API
 * status, in one round trip: every API request needs both (cached by src/services/api-access.ts).
 */
export async function findTokenWithApiStatus(
  db: Queryable,
  hash: string | null,
): Promise<{ status: ApiStatus; token: TokenWithAccount | null }> {
  const rows = await db.query<TokenWithAccount & { api_open: boolean; api_retry_after_seconds: number }>(
    `SELECT s.open AS api_open, s.retry_after_seconds AS api_retry_after_seconds, t.*, a.email, a.plan
     FROM api_status s
     LEFT JOIN (api_tokens t JOIN accounts a ON a.id = t.account_id) ON t.token_hash = $1::text
     WHERE s.id = 1`,
    [hash],
  );
  const [row] = rows;
  if (row === undefined) throw new AppError('internal_error', 'the api_status row is missing');
  const { api_open: open, api_retry_after_seconds: retryAfter, ...token } = row;
  return { status: { open, retry_after_seconds: retryAfter }, token: token.id === null ? null : token };
}

/** Revokes a token (again: no change); returns its account, or null when there is no such token. */
export async function revokeToken(db: Queryable, id: string, at: Date): Promise<string | null> {
  const rows = await db.query<{ account_id: string }>(
    'UPDATE api_tokens SET revoked_at = COALESCE(revoked_at, $2) WHERE id = $1 RETURNING account_id',
    [id, at],
  );
  return rows[0]?.account_id ?? null;
}

/** last_used_at is recorded at most this often per token, to keep the hot path light. */
export const TOUCH_INTERVAL_SECONDS = 60;

/** Records use at most once per TOUCH_INTERVAL_SECONDS per token (the condition also guards concurrent touches). */
export async function touchToken(db: Queryable, id: string, at: Date): Promise<void> {
  await db.query(
    `UPDATE api_tokens SET last_used_at = $2::timestamptz
     WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < $2::timestamptz - make_interval(secs => $3::int))`,
    [id, at, TOUCH_INTERVAL_SECONDS],
  );
}
