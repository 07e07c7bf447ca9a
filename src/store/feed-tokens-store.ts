import type { ChangeRow } from './changes-store.ts';
import type { Queryable } from './database.ts';

export interface FeedTokenRow {
  id: string;
  account_id: string;
  name: string;
  label: string | null;
  monitor_id: string | null;
  token_hash: string;
  token_hint: string;
  created_at: Date;
  revoked_at: Date | null;
}

export interface FeedTokenWithPlan extends FeedTokenRow {
  plan: string;
}

const COLUMNS = 'id, account_id, name, label, monitor_id, token_hash, token_hint, created_at, revoked_at';

export async function insertFeedToken(db: Queryable, row: Omit<FeedTokenRow, 'revoked_at'>): Promise<void> {
  await db.query(
    `INSERT INTO feed_tokens (id, account_id, name, label, monitor_id, token_hash, token_hint, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [row.id, row.account_id, row.name, row.label, row.monitor_id, row.token_hash, row.token_hint, row.created_at],
  );
}

export async function countActiveFeedTokens(db: Queryable, accountId: string): Promise<number> {
  const rows = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM feed_tokens WHERE account_id = $1 AND revoked_at IS NULL', [
    accountId,
  ]);
  return rows[0]?.n ?? 0;
}

export async function listFeedTokens(db: Queryable, accountId: string): Promise<FeedTokenRow[]> {
  return db.query<FeedTokenRow>(`SELECT ${COLUMNS} FROM feed_tokens WHERE account_id = $1 ORDER BY created_at DESC, id DESC`, [accountId]);
}

/** Revokes the account's token; false when the account has no such token. Revoking twice keeps the first time. */
export async function revokeFeedToken(db: Queryable, accountId: string, id: string, at: Date): Promise<boolean> {
  const rows = await db.query<{ id: string }>(
    'UPDATE feed_tokens SET revoked_at = coalesce(revoked_at, $3) WHERE id = $1 AND account_id = $2 RETURNING id',
    [id, accountId, at],
  );
  return rows.length > 0;
}

export async function findFeedToken(db: Queryable, hash: string): Promise<FeedTokenWithPlan | null> {
  const rows = await db.query<FeedTokenWithPlan>(
    `SELECT ${COLUMNS.split(', ')
      .map((c) => `f.${c}`)
      .join(', ')}, a.plan
     FROM feed_tokens f JOIN accounts a ON a.id = f.account_id WHERE f.token_hash = $1`,
    [hash],
  );
  return rows[0] ?? null;
}

/**
 * Counts one read in the token's hourly window, atomically (so it holds across
 * API nodes); answers the reads counted in the window, this one included, and
 * when the window began.
 */
export async function countFeedRead(
  db: Queryable,
  id: string,
  at: Date,
  windowSeconds: number,
): Promise<{ count: number; windowStart: Date }> {
  const rows = await db.query<{ read_count: number; read_window_start: Date }>(
    `UPDATE feed_tokens SET
       read_window_start = CASE WHEN read_window_start IS NULL OR read_window_start <= $2::timestamptz - make_interval(secs => $3)
                                THEN $2::timestamptz ELSE read_window_start END,
       read_count = CASE WHEN read_window_start IS NULL OR read_window_start <= $2::timestamptz - make_interval(secs => $3)
                         THEN 1 ELSE read_count + 1 END
     WHERE id = $1 RETURNING read_count, read_window_start`,
    [id, at, windowSeconds],
  );
  const row = rows[0]!;
  return { count: row.read_count, windowStart: row.read_window_start };
}

export async function accountHasMonitor(db: Queryable, accountId: string, monitorId: string): Promise<boolean> {
  const rows = await db.query('SELECT 1 FROM monitors WHERE id = $1 AND account_id = $2', [monitorId, accountId]);
  return rows.length > 0;
}

export interface FeedChangeRow extends ChangeRow {
  monitor_name: string | null;
  monitor_url: string;
}

export interface FeedFilters {
  accountId: string;
  retainedAfter: Date;
  /** monitors carrying every one of these labels */
  labels: string[];
  /** changes of every one of these monitors (two different ids select nothing) */
  monitorIds: string[];
}

/** The newest changes a feed shows, with their monitor's name and URL. */
export async function listFeedChanges(db: Queryable, filters: FeedFilters, limit: number): Promise<FeedChangeRow[]> {
  return db.query<FeedChangeRow>(
    `SELECT c.*, m.name AS monitor_name, m.url AS monitor_url
     FROM changes c JOIN monitors m ON m.id = c.monitor_id
     WHERE c.account_id = $1 AND c.detected_at > $2::timestamptz
       AND m.labels @> $3::jsonb
       AND c.monitor_id = ALL ($4::uuid[])
     ORDER BY c.detected_at DESC, c.id DESC LIMIT $5`,
    [filters.accountId, filters.retainedAfter, JSON.stringify(filters.labels), filters.monitorIds, limit],
  );
}
