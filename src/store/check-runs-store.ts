import type { CheckIssue } from '../domain/issues.ts';
import type { Queryable } from './database.ts';

// not_modified: a conditional request answered 304, the page was the one last read whole (issue #41)
export type CheckRunOutcome = 'ok' | 'issues' | 'failed' | 'not_modified';

export interface CheckRunRow {
  seq: string;
  monitor_id: string;
  checked_at: Date;
  duration_ms: number;
  outcome: CheckRunOutcome;
  http_status: number | null;
  manual_check_id: string | null;
  issues: CheckIssue[] | null;
  changes: string[] | null;
}

/** What a check's history row records beyond its monitor, time, issues and changes. */
export type CheckRunFacts = Pick<CheckRunRow, 'duration_ms' | 'outcome' | 'http_status' | 'manual_check_id'>;

/** Newest first, checked after `retainedAfter`, strictly before the keyset position when given. */
export async function listCheckRuns(
  db: Queryable,
  query: { monitorId: string; retainedAfter: Date; beforeSeq: string | null; limit: number },
): Promise<CheckRunRow[]> {
  return db.query<CheckRunRow>(
    // Ordered by the column, not by the text alias (which ORDER BY would pick): "9" sorts after "10" as text.
    `SELECT r.seq::text AS seq, r.monitor_id, r.checked_at, r.duration_ms, r.outcome, r.http_status, r.manual_check_id, r.issues, r.changes
     FROM check_runs r
     WHERE r.monitor_id = $1 AND r.checked_at > $2::timestamptz AND ($3::bigint IS NULL OR r.seq < $3::bigint)
     ORDER BY r.seq DESC LIMIT $4`,
    [query.monitorId, query.retainedAfter, query.beforeSeq, query.limit],
  );
}

/** Deletes the check history of accounts on `plan` checked at or before `cutoff`. */
export async function deleteExpiredCheckRuns(db: Queryable, plan: string, cutoff: Date): Promise<number> {
  const rows = await db.query<{ deleted: number }>(
    `WITH deleted AS (
       DELETE FROM check_runs r USING monitors m, accounts a
       WHERE m.id = r.monitor_id AND a.id = m.account_id AND a.plan = $1 AND r.checked_at <= $2::timestamptz RETURNING 1
     )
     SELECT count(*)::int AS deleted FROM deleted`,
    [plan, cutoff],
  );
  return rows[0]?.deleted ?? 0;
}
