import type { Queryable } from './database.ts';

export interface IdempotencyRow {
  request_hash: string;
  /** the operation's value; null while the claiming transaction has not finished */
  result: unknown;
}

/**
 * Claims a key for this request, or takes over one retained longer than
 * `retainSeconds` (treated as new). Returns false when a live row exists; on
 * PostgreSQL a concurrent claim of the same key waits here until the other
 * transaction commits or rolls back.
 */
export async function claimIdempotencyKey(
  db: Queryable,
  row: { account_id: string; operation: string; key: string; request_hash: string; created_at: Date },
  retainSeconds: number,
): Promise<boolean> {
  const rows = await db.query(
    `INSERT INTO idempotency_keys (account_id, operation, key, request_hash, created_at) VALUES ($1, $2, $3, $4, $5::timestamptz)
     ON CONFLICT (account_id, operation, key) DO UPDATE SET
       request_hash = EXCLUDED.request_hash, created_at = EXCLUDED.created_at,
       result = NULL
     WHERE idempotency_keys.created_at <= $5::timestamptz - make_interval(secs => $6::int)
     RETURNING key`,
    [row.account_id, row.operation, row.key, row.request_hash, row.created_at, retainSeconds],
  );
  return rows.length > 0;
}

export async function findIdempotencyKey(db: Queryable, accountId: string, operation: string, key: string): Promise<IdempotencyRow | null> {
  const rows = await db.query<IdempotencyRow>(
    'SELECT request_hash, result FROM idempotency_keys WHERE account_id = $1 AND operation = $2 AND key = $3',
    [accountId, operation, key],
  );
  return rows[0] ?? null;
}

/** How many keys the account retains since `since`, and when the oldest of them was claimed. */
export async function recentIdempotencyKeys(
  db: Queryable,
  accountId: string,
  since: Date,
): Promise<{ count: number; oldest: Date | null }> {
  const rows = await db.query<{ count: number; oldest: Date | null }>(
    'SELECT count(*)::int AS count, min(created_at) AS oldest FROM idempotency_keys WHERE account_id = $1 AND created_at > $2',
    [accountId, since],
  );
  // an aggregate always returns one row; this is what it returns over no keys
  return rows[0] ?? { count: 0, oldest: null };
}

export async function storeIdempotentResult(
  db: Queryable,
  where: { account_id: string; operation: string; key: string },
  result: unknown,
): Promise<void> {
  await db.query('UPDATE idempotency_keys SET result = $4 WHERE account_id = $1 AND operation = $2 AND key = $3', [
    where.account_id,
    where.operation,
    where.key,
    JSON.stringify(result),
  ]);
}
