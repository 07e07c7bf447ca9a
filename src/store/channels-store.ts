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
  if (rows.length === 0) return false;
  await db.query(
    'UPDATE monitors SET channel_ids = array_remove(channel_ids, $1::uuid) WHERE account_id = $2 AND $1::uuid = ANY (channel_ids)',
    [id, accountId],
  );
  return true;
}

/** Those of `ids` that are not channels of the account. */
export async function foreignChannelIds(db: Queryable, accountId: string, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await db.query<{ id: string }>(
    'SELECT i.id::text AS id FROM unnest($1::uuid[]) AS i(id) WHERE NOT EXISTS (SELECT 1 FROM channels c WHERE c.id = i.id AND c.account_id = $2)',
    [ids, accountId],
  );
  return rows.map((r) => r.id);
}

/** The channel an outbox row of channel 'chat' goes to, with whether its monitor still chooses it. */
export async function channelOfDelivery(db: Queryable, outboxId: string): Promise<(ChannelRow & { chosen: boolean }) | null> {
  const rows = await db.query<ChannelRow & { chosen: boolean }>(
    `SELECT ${COLUMNS.split(', ')
      .map((c) => `c.${c}`)
      .join(', ')}, c.id = ANY (m.channel_ids) AS chosen
     FROM notification_outbox o
     JOIN channels c ON c.id = o.channel_id
     LEFT JOIN changes ch ON ch.id = o.change_id
     JOIN monitors m ON m.id = COALESCE(o.monitor_id, ch.monitor_id)
     WHERE o.id = $1`,
    [outboxId],
  );
  return rows[0] ?? null;
}

/** Marks an active channel failing; false when it was failing already (so it is reported once). */
export async function markChannelFailing(db: Queryable, id: string): Promise<boolean> {
  const rows = await db.query<{ id: string }>("UPDATE channels SET state = 'failing' WHERE id = $1 AND state = 'active' RETURNING id", [
    id,
  ]);
  return rows.length > 0;
}

/** A channel that delivered again (a successful test) is active again. */
export async function markChannelActive(db: Queryable, id: string): Promise<void> {
  await db.query("UPDATE channels SET state = 'active' WHERE id = $1", [id]);
}

export interface ChannelDeliveryRow {
  id: string;
  event: string;
  created_at: Date;
  status: 'pending' | 'delivered' | 'failed' | 'skipped';
  attempts: number;
  last_attempt_at: Date | null;
  response_status: number | null;
  last_error: string | null;
  skipped_reason: string | null;
}

/** The channel's newest messages with their last attempt, for its delivery log. */
export async function listChannelDeliveries(
  db: Queryable,
  accountId: string,
  channelId: string,
  limit: number,
): Promise<ChannelDeliveryRow[]> {
  return db.query<ChannelDeliveryRow>(
    `SELECT o.id, o.event, o.created_at, o.status, o.attempts, a.attempted_at AS last_attempt_at, a.response_status,
       o.last_error, o.skipped_reason
     FROM notification_outbox o
     LEFT JOIN LATERAL (SELECT attempted_at, response_status FROM notification_attempts
                        WHERE outbox_id = o.id ORDER BY attempted_at DESC LIMIT 1) a ON true
     WHERE o.channel_id = $1 AND o.account_id = $2
     ORDER BY o.created_at DESC, o.id DESC LIMIT $3`,
    [channelId, accountId, limit],
  );
}
