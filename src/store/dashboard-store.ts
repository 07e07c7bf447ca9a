import type { Queryable } from './database.ts';

// Queries of the account dashboard: owner passwords, sessions, one-time
// set-password links and sign-in failures (migration 007).

export interface SignInAccount {
  id: string;
  email: string;
  plan: string;
  password_hash: string | null;
}

export async function findSignInAccount(db: Queryable, email: string): Promise<SignInAccount | null> {
  const rows = await db.query<SignInAccount>(
    `SELECT a.id, a.email, a.plan, p.password_hash FROM accounts a
     LEFT JOIN account_passwords p ON p.account_id = a.id WHERE a.email = $1`,
    [email],
  );
  return rows[0] ?? null;
}

export async function writePasswordHash(db: Queryable, accountId: string, hash: string, at: Date): Promise<void> {
  await db.query(
    `INSERT INTO account_passwords (account_id, password_hash, updated_at) VALUES ($1, $2, $3)
     ON CONFLICT (account_id) DO UPDATE SET password_hash = EXCLUDED.password_hash, updated_at = EXCLUDED.updated_at`,
    [accountId, hash, at],
  );
}

export interface SessionRow {
  id_hash: string;
  account_id: string;
  email: string;
  plan: string;
  created_at: Date;
  expires_at: Date;
  absolute_expires_at: Date;
}

export async function insertSession(db: Queryable, row: Omit<SessionRow, 'email' | 'plan'>): Promise<void> {
  await db.query(
    'INSERT INTO dashboard_sessions (id_hash, account_id, created_at, expires_at, absolute_expires_at) VALUES ($1, $2, $3, $4, $5)',
    [row.id_hash, row.account_id, row.created_at, row.expires_at, row.absolute_expires_at],
  );
}

/** The session with its account, if it has not expired. */
export async function findLiveSession(db: Queryable, idHash: string, at: Date): Promise<SessionRow | null> {
  const rows = await db.query<SessionRow>(
    `SELECT s.*, a.email, a.plan FROM dashboard_sessions s JOIN accounts a ON a.id = s.account_id
     WHERE s.id_hash = $1 AND s.expires_at > $2`,
    [idHash, at],
  );
  return rows[0] ?? null;
}

export async function extendSession(db: Queryable, idHash: string, expiresAt: Date): Promise<void> {
  await db.query('UPDATE dashboard_sessions SET expires_at = $2 WHERE id_hash = $1', [idHash, expiresAt]);
}

export async function deleteSession(db: Queryable, idHash: string): Promise<void> {
  await db.query('DELETE FROM dashboard_sessions WHERE id_hash = $1', [idHash]);
}

export async function deleteAccountSessions(db: Queryable, accountId: string): Promise<void> {
  await db.query('DELETE FROM dashboard_sessions WHERE account_id = $1', [accountId]);
}

export async function deleteExpiredSessions(db: Queryable, at: Date): Promise<number> {
  return (await db.query('DELETE FROM dashboard_sessions WHERE expires_at <= $1 RETURNING account_id', [at])).length;
}

export async function deleteExpiredPasswordLinks(db: Queryable, at: Date): Promise<number> {
  return (await db.query('DELETE FROM password_links WHERE expires_at <= $1 RETURNING account_id', [at])).length;
}

/** Stores a new link and withdraws the account's earlier unused ones: only the newest link works. */
export async function replacePasswordLink(
  db: Queryable,
  row: { token_hash: string; account_id: string; created_at: Date; expires_at: Date },
): Promise<void> {
  await db.query('DELETE FROM password_links WHERE account_id = $1 AND used_at IS NULL', [row.account_id]);
  await db.query('INSERT INTO password_links (token_hash, account_id, created_at, expires_at) VALUES ($1, $2, $3, $4)', [
    row.token_hash,
    row.account_id,
    row.created_at,
    row.expires_at,
  ]);
}

export async function findUsablePasswordLink(
  db: Queryable,
  tokenHash: string,
  at: Date,
): Promise<{ account_id: string; email: string } | null> {
  const rows = await db.query<{ account_id: string; email: string }>(
    `SELECT l.account_id, a.email FROM password_links l JOIN accounts a ON a.id = l.account_id
     WHERE l.token_hash = $1 AND l.used_at IS NULL AND l.expires_at > $2`,
    [tokenHash, at],
  );
  return rows[0] ?? null;
}

/** Marks the link used, exactly once: a second use of the same link finds nothing. */
export async function consumePasswordLink(db: Queryable, tokenHash: string, at: Date): Promise<string | null> {
  const rows = await db.query<{ account_id: string }>(
    'UPDATE password_links SET used_at = $2 WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $2 RETURNING account_id',
    [tokenHash, at],
  );
  return rows[0]?.account_id ?? null;
}

export async function recordSignInFailure(db: Queryable, keys: string[], at: Date): Promise<void> {
  for (const key of keys) await db.query('INSERT INTO sign_in_failures (throttle_key, failed_at) VALUES ($1, $2)', [key, at]);
}

/** Failures per key since `since`, with the oldest of them (when the window frees up). */
export async function countSignInFailures(
  db: Queryable,
  keys: string[],
  since: Date,
): Promise<{ key: string; count: number; oldest: Date }[]> {
  return db.query<{ key: string; count: number; oldest: Date }>(
    `SELECT throttle_key AS key, count(*)::int AS count, min(failed_at) AS oldest FROM sign_in_failures
     WHERE throttle_key = ANY($1::text[]) AND failed_at > $2 GROUP BY throttle_key`,
    [keys, since],
  );
}

export async function clearSignInFailures(db: Queryable, key: string): Promise<void> {
  await db.query('DELETE FROM sign_in_failures WHERE throttle_key = $1', [key]);
}

export async function deleteOldSignInFailures(db: Queryable, before: Date): Promise<void> {
  await db.query('DELETE FROM sign_in_failures WHERE failed_at <= $1', [before]);
}
