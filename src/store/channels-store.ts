import type { Queryable } from './database.ts';

// Notification channels (migration 027) and which of them each monitor uses.

export interface ChannelRow {
  id: string;
  account_id: string;
  name: string;
  type: string;
  /** the Apprise-style URL as given, secrets included: never shown, only sent */
  url: string;
  state: 'active' | 'failing';
  created_at: Date;
}

const COLUMNS = 'id, account_id, name, type, url, state, created_at';

export async function insertChannel(db: Queryable, row: Omit<ChannelRow, 'state'>): Promise<void> {
  await db.query(`INSERT INTO channels (id, account_id, name, type, url, created_at) VALUES ($1, $2, $3, $4, $5, $6)`, [
    row.id,
    row.account_id,
    row.name,
    row.type,
    row.url,
    row.created_at,
  ]);
}

export async function countChannels(db: Queryable, accountId: string): Promise<number> {
  const rows = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM channels WHERE account_id = $1', [accountId]);
  return rows[0]?.n ?? 0;
}

export async function listChannels(db: Queryable, accountId: string): Promise<ChannelRow[]> {
  return db.query<ChannelRow>(`SELECT ${COLUMNS} FROM channels WHERE account_id = $1 ORDER BY created_at DESC, id DESC`, [accountId]);
}

export async function findChannel(db: Queryable, accountId: string, id: string): Promise<ChannelRow | null> {
  const rows = await db.query<ChannelRow>(`SELECT ${COLUMNS} FROM channels WHERE id = $1 AND account_id = $2`, [id, accountId]);
  return rows[0] ?? null;
}

/** Deletes the account's channel (its monitors stop using it, its queued messages go); false when there is none. */
export async function deleteChannel(db: Queryable, accountId: string, id: string): Promise<boolean> {
  const rows = await db.query<{ id: string }>('DELETE FROM channels WHERE id = $1 AND account_id = $2 RETURNING id', [id, accountId]);
  return rows.length > 0;
}
