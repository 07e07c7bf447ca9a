import type { Queryable } from './database.ts';

export interface AccountRow {
  id: string;
  email: string;
  plan: string;
  webhook_url: string | null;
  webhook_secret: string | null;
  time_zone: string;
  email_mode: 'each' | 'daily' | 'weekly';
  digest_hour: number;
  created_at: Date;
  updated_at: Date;
}

export async function insertAccount(
  db: Queryable,
  row: Omit<AccountRow, 'webhook_url' | 'webhook_secret' | 'time_zone' | 'email_mode' | 'digest_hour'>,
): Promise<AccountRow | null> {
  const rows = await db.query<AccountRow>(
    `INSERT INTO accounts (id, email, plan, created_at, updated_at) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (email) DO NOTHING RETURNING *`,
    [row.id, row.email, row.plan, row.created_at, row.updated_at],
  );
  return rows[0] ?? null;
}

export async function findAccount(db: Queryable, id: string): Promise<AccountRow | null> {
  const rows = await db.query<AccountRow>('SELECT * FROM accounts WHERE id = $1', [id]);
  return rows[0] ?? null;
}

/**
 * Locks the account row for the rest of the transaction (serialises per-account limits). NO KEY UPDATE, not UPDATE:
 * it still excludes every other locker, but not the key-share lock a foreign key takes when a row referring to the
 * account is inserted, so a transaction that inserted such a row first (an idempotency key) cannot deadlock with another.
 */
export async function lockAccount(db: Queryable, id: string): Promise<AccountRow | null> {
  const rows = await db.query<AccountRow>('SELECT * FROM accounts WHERE id = $1 FOR NO KEY UPDATE', [id]);
  return rows[0] ?? null;
}

export async function countAccounts(db: Queryable): Promise<number> {
  const rows = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM accounts');
  // count(*) always returns one row
  return rows[0]?.n ?? 0;
}

export async function updateAccount(
  db: Queryable,
  id: string,
  changes: {
    email?: string;
    plan?: string;
    webhook_url?: string | null;
    webhook_secret?: string | null;
    time_zone?: string;
    email_mode?: string;
    digest_hour?: number;
  },
  at: Date,
): Promise<AccountRow | null> {
  const sets: string[] = [];
  const params: unknown[] = [id, at];
  for (const [column, value] of Object.entries(changes)) {
    if (value === undefined) continue;
    params.push(value);
    sets.push(`${column} = $${params.length}`);
  }
  const rows = await db.query<AccountRow>(
    `UPDATE accounts SET ${[...sets, 'updated_at = $2'].join(', ')} WHERE id = $1 RETURNING *`,
    params,
  );
  return rows[0] ?? null;
}

export type ListedAccountRow = AccountRow & { monitors: number };

/** One page of accounts, newest first, strictly after the keyset position when one is given, each with its monitor count. */
export async function listAccounts(
  db: Queryable,
  query: { limit: number; after: { created_at: Date; id: string } | null },
): Promise<ListedAccountRow[]> {
  return db.query<ListedAccountRow>(
    `SELECT a.*, (SELECT count(*)::int FROM monitors m WHERE m.account_id = a.id) AS monitors
     FROM accounts a
     WHERE $1::timestamptz IS NULL OR (a.created_at, a.id) < ($1::timestamptz, $2::uuid)
     ORDER BY a.created_at DESC, a.id DESC
     LIMIT $3`,
    [query.after?.created_at ?? null, query.after?.id ?? null, query.limit],
  );
}
