import type { Queryable } from './database.ts';

export interface ChangeRow {
  id: string;
  account_id: string;
  monitor_id: string;
  target_id: string;
  kind: string;
  detected_at: Date;
  rule_matches: unknown[] | null;
  matched: boolean;
  before_value: unknown;
  before_display: string | null;
  after_value: unknown;
  after_display: string | null;
  before_text_hash: string | null;
  after_text_hash: string | null;
}

export interface ChangeFilters {
  accountId: string;
  /** changes detected at or before this instant are past retention */
  retainedAfter: Date;
  monitorId?: string;
  targetId?: string;
  since?: Date;
  until?: Date;
  matched?: boolean;
  /** keyset position: rows strictly older than (detectedAt, id) */
  before?: { detectedAt: Date; id: string };
}

/** Inserts several changes in one statement (a check's changed targets; the store-size benchmarks' bulk). */
export async function insertChanges(db: Queryable, rows: ChangeRow[]): Promise<void> {
  if (rows.length === 0) return;
  const column = <T>(pick: (r: ChangeRow) => T) => rows.map(pick);
  await db.query(
    `INSERT INTO changes (id, account_id, monitor_id, target_id, kind, detected_at, rule_matches, matched,
       before_value, before_display, after_value, after_display, before_text_hash, after_text_hash)
     SELECT id, account_id, monitor_id, target_id, kind, detected_at, rule_matches::jsonb, matched,
       before_value::jsonb, before_display, after_value::jsonb, after_display, before_text_hash, after_text_hash
     FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::text[], $5::text[], $6::timestamptz[], $7::text[], $8::boolean[],
       $9::text[], $10::text[], $11::text[], $12::text[], $13::text[], $14::text[])
       AS c(id, account_id, monitor_id, target_id, kind, detected_at, rule_matches, matched,
         before_value, before_display, after_value, after_display, before_text_hash, after_text_hash)`,
    [
      column((r) => r.id),
      column((r) => r.account_id),
      column((r) => r.monitor_id),
      column((r) => r.target_id),
      column((r) => r.kind),
      column((r) => r.detected_at),
      column((r) => (r.rule_matches === null ? null : JSON.stringify(r.rule_matches))),
      column((r) => r.matched),
      column((r) => JSON.stringify(r.before_value)),
      column((r) => r.before_display),
      column((r) => JSON.stringify(r.after_value)),
      column((r) => r.after_display),
      column((r) => r.before_text_hash),
      column((r) => r.after_text_hash),
    ],
  );
}

/** Newest first, keyset-paginated on (detected_at, id). */
export async function listChanges(db: Queryable, filters: ChangeFilters, limit: number): Promise<ChangeRow[]> {
  const params: unknown[] = [filters.accountId, filters.retainedAfter];
  const where = ['account_id = $1', 'detected_at > $2::timestamptz'];
  const add = (sql: (n: string) => string, value: unknown) => {
    params.push(value);
    where.push(sql(`$${params.length}`));
  };
  if (filters.monitorId !== undefined) add((p) => `monitor_id = ${p}::uuid`, filters.monitorId);
  if (filters.targetId !== undefined) add((p) => `target_id = ${p}`, filters.targetId);
  if (filters.since !== undefined) add((p) => `detected_at >= ${p}::timestamptz`, filters.since);
  if (filters.until !== undefined) add((p) => `detected_at < ${p}::timestamptz`, filters.until);
  if (filters.matched !== undefined) add((p) => `matched = ${p}`, filters.matched);
  if (filters.before !== undefined) {
    params.push(filters.before.detectedAt, filters.before.id);
    where.push(`(detected_at, id) < ($${params.length - 1}::timestamptz, $${params.length}::uuid)`);
  }
  params.push(limit);
  return db.query<ChangeRow>(
    `SELECT * FROM changes WHERE ${where.join(' AND ')} ORDER BY detected_at DESC, id DESC LIMIT $${params.length}`,
    params,
  );
}

/** One retained change of the account, or null. */
export async function findChange(db: Queryable, accountId: string, id: string, retainedAfter: Date): Promise<ChangeRow | null> {
  const rows = await db.query<ChangeRow>('SELECT * FROM changes WHERE id = $1 AND account_id = $2 AND detected_at > $3::timestamptz', [
    id,
    accountId,
    retainedAfter,
  ]);
  return rows[0] ?? null;
}

/** The changes with these ids that still exist, in no particular order. */
export async function readChangesByIds(db: Queryable, ids: string[]): Promise<ChangeRow[]> {
  return db.query<ChangeRow>('SELECT * FROM changes WHERE id = ANY($1::uuid[])', [ids]);
}

/** Deletes the changes of accounts on `plan` detected at or before `cutoff`. */
export async function deleteExpiredChanges(db: Queryable, plan: string, cutoff: Date): Promise<number> {
  const rows = await db.query(
    `DELETE FROM changes c USING accounts a
     WHERE a.id = c.account_id AND a.plan = $1 AND c.detected_at <= $2::timestamptz RETURNING c.id`,
    [plan, cutoff],
  );
  return rows.length;
}
