import type { CheckIssue } from '../domain/issues.ts';
import type { Queryable } from './database.ts';
import type { CheckRunFacts } from './check-runs-store.ts';

// The engine's writes to a monitor's check state (the narrow check_state row,
// never the wide monitors row): schedule and the outcome of a check.
// (Creating and editing monitors belongs to the monitors service.)

/** A check was skipped (site backoff, allowance): the schedule moves on and the reason is shown. */
export async function recordSkippedCheck(db: Queryable, id: string, nextCheckAt: Date, issues: CheckIssue[]): Promise<void> {
  await db.query('UPDATE check_state SET next_check_at = $2::timestamptz, last_issues = $3::jsonb WHERE monitor_id = $1', [
    id,
    nextCheckAt,
    JSON.stringify(issues),
  ]);
}

/** Moves overdue monitors to their next slots without checking them (see nextDueAt), in one statement. */
export async function rescheduleMonitors(db: Queryable, moves: { id: string; nextCheckAt: Date }[]): Promise<void> {
  if (moves.length === 0) return;
  await db.query(
    'UPDATE check_state s SET next_check_at = m.at FROM unnest($1::uuid[], $2::timestamptz[]) AS m(id, at) WHERE s.monitor_id = m.id',
    [moves.map((m) => m.id), moves.map((m) => m.nextCheckAt)],
  );
}

/** A recorded check as the commit decided it: the new check state and the history row. */
export interface CheckRecord {
  monitorId: string;
  token: string;
  checkedAt: Date;
  nextCheckAt: Date | null;
  changed: boolean;
  issues: CheckIssue[];
  consecutiveFailures: number;
  failingSince: Date | null;
  changes: string[];
  run: CheckRunFacts;
}

/**
 * Records the outcome of a batch of checks in one statement: each monitor's
 * check state, its history row, and the release of its lease (the leases and
 * states are locked by the commit). An unchanged check writes a narrow state
 * row and a history row of a few dozen bytes.
 */
export async function recordChecks(db: Queryable, records: CheckRecord[]): Promise<void> {
  if (records.length === 0) return;
  const column = <T>(pick: (r: CheckRecord) => T) => records.map(pick);
  await db.query(
    `WITH b AS (
       SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::timestamptz[], $4::timestamptz[], $5::boolean[], $6::text[], $7::int[],
         $8::timestamptz[], $9::int[], $10::text[], $11::int[], $12::uuid[], $13::text[])
       AS b(monitor_id, token, checked_at, next_check_at, changed, issues, failures, failing_since, duration_ms, outcome, http_status,
         manual_check_id, changes)
     ), released AS (
       DELETE FROM check_leases l USING b WHERE l.monitor_id = b.monitor_id AND l.token = b.token
     ), history AS (
       INSERT INTO check_runs (monitor_id, checked_at, duration_ms, outcome, http_status, manual_check_id, issues, changes)
       SELECT monitor_id, checked_at, duration_ms, outcome, http_status, manual_check_id, NULLIF(issues::jsonb, '[]'::jsonb), changes::jsonb
       FROM b
     )
     UPDATE check_state s SET last_checked_at = b.checked_at, next_check_at = b.next_check_at,
       last_change_at = CASE WHEN b.changed THEN b.checked_at ELSE s.last_change_at END,
       last_issues = b.issues::jsonb, consecutive_failures = b.failures, failing_since = b.failing_since
     FROM b WHERE s.monitor_id = b.monitor_id`,
    [
      column((r) => r.monitorId),
      column((r) => r.token),
      column((r) => r.checkedAt),
      column((r) => r.nextCheckAt),
      column((r) => r.changed),
      column((r) => JSON.stringify(r.issues)),
      column((r) => r.consecutiveFailures),
      column((r) => r.failingSince),
      column((r) => r.run.duration_ms),
      column((r) => r.run.outcome),
      column((r) => r.run.http_status),
      column((r) => r.run.manual_check_id),
      column((r) => (r.changes.length > 0 ? JSON.stringify(r.changes) : null)),
    ],
  );
}
