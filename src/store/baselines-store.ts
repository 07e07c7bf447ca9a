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

/**
 * Writes several baselines (distinct monitor and target pairs) in one statement,
 * in key order, so that writers of overlapping rows take their locks alike.
 */
export async function writeBaselines(db: Queryable, rows: BaselineRow[]): Promise<void> {
  if (rows.length === 0) return;
  const sorted = [...rows].sort((a, b) =>
    a.monitor_id === b.monitor_id ? (a.target_id < b.target_id ? -1 : 1) : a.monitor_id < b.monitor_id ? -1 : 1,
  );
  const column = <T>(pick: (r: BaselineRow) => T) => sorted.map(pick);
  await db.query(
    `INSERT INTO baselines (monitor_id, target_id, fingerprint, value, display, text_hash, seen_links, updated_at, pending_value, pending_since)
     SELECT monitor_id, target_id, fingerprint, value::jsonb, display, text_hash, seen_links::jsonb, updated_at, pending_value::jsonb, pending_since
     FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::timestamptz[], $9::text[],
       $10::timestamptz[])
       AS b(monitor_id, target_id, fingerprint, value, display, text_hash, seen_links, updated_at, pending_value, pending_since)
     ON CONFLICT (monitor_id, target_id) DO UPDATE SET
       fingerprint = EXCLUDED.fingerprint, value = EXCLUDED.value, display = EXCLUDED.display,
       text_hash = EXCLUDED.text_hash, seen_links = EXCLUDED.seen_links, updated_at = EXCLUDED.updated_at,
       pending_value = EXCLUDED.pending_value, pending_since = EXCLUDED.pending_since`,
    [
      column((r) => r.monitor_id),
      column((r) => r.target_id),
      column((r) => r.fingerprint),
      column((r) => JSON.stringify(r.value)),
      column((r) => r.display),
      column((r) => r.text_hash),
      column((r) => JSON.stringify(r.seen_links)),
      column((r) => r.updated_at),
      column((r) => (r.pending_value === null ? null : JSON.stringify(r.pending_value))),
      column((r) => r.pending_since),
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
