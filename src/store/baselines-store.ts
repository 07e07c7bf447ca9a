import type { Queryable } from './database.ts';

export interface BaselineRow {
  monitor_id: string;
  target_id: string;
  fingerprint: string;
  value: unknown;
  display: string | null;
  text_hash: string | null;
  seen_links: string[];
  updated_at: Date;
  /** confirm targets: a new value seen once, waiting for the re-check that confirms it */
  pending_value: unknown;
  pending_since: Date | null;
}

/** The baselines of several monitors, by monitor id and target id, in one statement. */
export async function readBaselinesOf(db: Queryable, monitorIds: string[]): Promise<Map<string, Map<string, BaselineRow>>> {
  const byMonitor = new Map<string, Map<string, BaselineRow>>(monitorIds.map((id) => [id, new Map()]));
  if (monitorIds.length === 0) return byMonitor;
  const rows = await db.query<BaselineRow>('SELECT * FROM baselines WHERE monitor_id = ANY($1::uuid[])', [monitorIds]);
  for (const row of rows) byMonitor.get(row.monitor_id)?.set(row.target_id, row);
  return byMonitor;
}

export async function writeBaseline(db: Queryable, row: BaselineRow): Promise<void> {
  await db.query(
    `INSERT INTO baselines (monitor_id, target_id, fingerprint, value, display, text_hash, seen_links, updated_at, pending_value, pending_since)
     VALUES ($1, $2, $3, $4::jsonb, $5, $6, $7::jsonb, $8::timestamptz, $9::jsonb, $10::timestamptz)
     ON CONFLICT (monitor_id, target_id) DO UPDATE SET
       fingerprint = EXCLUDED.fingerprint, value = EXCLUDED.value, display = EXCLUDED.display,
       text_hash = EXCLUDED.text_hash, seen_links = EXCLUDED.seen_links, updated_at = EXCLUDED.updated_at,
       pending_value = EXCLUDED.pending_value, pending_since = EXCLUDED.pending_since`,
    [
      row.monitor_id,
      row.target_id,
      row.fingerprint,
      JSON.stringify(row.value),
      row.display,
      row.text_hash,
      JSON.stringify(row.seen_links),
      row.updated_at,
      row.pending_value === null ? null : JSON.stringify(row.pending_value),
      row.pending_since,
    ],
  );
}

/** Baselines of targets the monitor no longer has: they would never be compared again. */
export async function deleteOtherBaselines(db: Queryable, monitorId: string, keepTargetIds: string[]): Promise<void> {
  await db.query('DELETE FROM baselines WHERE monitor_id = $1 AND NOT (target_id = ANY($2::text[]))', [monitorId, keepTargetIds]);
}

/** Records (or, with null, drops) the value a confirm target waits to see again; the baseline itself does not move. */
export async function setPendingValue(
  db: Queryable,
  monitorId: string,
  targetId: string,
  pending: { value: unknown; since: Date } | null,
): Promise<void> {
  await db.query(
    'UPDATE baselines SET pending_value = $3::jsonb, pending_since = $4::timestamptz WHERE monitor_id = $1 AND target_id = $2',
    [monitorId, targetId, pending === null ? null : JSON.stringify(pending.value), pending?.since ?? null],
  );
}
