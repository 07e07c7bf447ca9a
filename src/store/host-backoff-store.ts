import type { Queryable } from './database.ts';

export interface HostBackoffRow {
  host: string;
  until: Date;
  backoff_seconds: number;
  reason: string;
}

/** Hosts that must not be loaded before their `until`, among `hosts`. */
export async function readActiveBackoffs(db: Queryable, hosts: string[], at: Date): Promise<Map<string, HostBackoffRow>> {
  if (hosts.length === 0) return new Map();
  const rows = await db.query<HostBackoffRow>('SELECT * FROM host_backoff WHERE host = ANY($1::text[]) AND until > $2::timestamptz', [
    hosts,
    at,
  ]);
  return new Map(rows.map((r) => [r.host, r]));
}

/** The host's current backoff row (expired or not), locked for the transaction. */
export async function lockBackoff(db: Queryable, host: string): Promise<HostBackoffRow | null> {
  const rows = await db.query<HostBackoffRow>('SELECT * FROM host_backoff WHERE host = $1 FOR UPDATE', [host]);
  return rows[0] ?? null;
}

export async function writeBackoff(db: Queryable, row: HostBackoffRow): Promise<void> {
  await db.query(
    `INSERT INTO host_backoff (host, until, backoff_seconds, reason) VALUES ($1, $2::timestamptz, $3, $4)
     ON CONFLICT (host) DO UPDATE SET until = EXCLUDED.until, backoff_seconds = EXCLUDED.backoff_seconds, reason = EXCLUDED.reason`,
    [row.host, row.until, row.backoff_seconds, row.reason],
  );
}

/** The host answered normally: forget its backoff. */
export async function clearBackoff(db: Queryable, host: string): Promise<void> {
  await db.query('DELETE FROM host_backoff WHERE host = $1', [host]);
}
