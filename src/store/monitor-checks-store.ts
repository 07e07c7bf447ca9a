import type { CheckIssue } from '../domain/issues.ts';
import type { Queryable } from './database.ts';
import type { CheckRunFacts } from './check-runs-store.ts';

// The engine's writes to monitor rows: schedule and the outcome of a check.
// (Creating and editing monitors belongs to the monitors service.)

/** A check was skipped (site backoff, allowance): the schedule moves on and the reason is shown. */
export async function recordSkippedCheck(db: Queryable, id: string, nextCheckAt: Date, issues: CheckIssue[]): Promise<void> {
  await db.query('UPDATE monitors SET next_check_at = $2::timestamptz, last_issues = $3::jsonb WHERE id = $1', [id, nextCheckAt, JSON.stringify(issues)]);
}

/** Moves an overdue monitor to its next slot without checking it (see nextDueAt). */
export async function rescheduleMonitor(db: Queryable, id: string, nextCheckAt: Date): Promise<void> {
  await db.query('UPDATE monitors SET next_check_at = $2::timestamptz WHERE id = $1', [id, nextCheckAt]);
}

/**
 * Records the outcome of a check on the monitor and in its history, and
 * releases the check's lease (the monitor and lease rows are locked by the
 * commit), in one statement.
 */
export async function recordCheckAndReleaseLease(
  db: Queryable,
  id: string,
  token: string,
  outcome: {
    checkedAt: Date;
    /** the next scheduled check; null keeps the current one */
    nextCheckAt: Date | null;
    /** an earlier check wanted (a confirmation re-check), or null */
    recheckAt: Date | null;
    changes: string[];
    issues: CheckIssue[];
    run: CheckRunFacts;
  },
): Promise<void> {
  const { run } = outcome;
  await db.query(
    `WITH released AS (DELETE FROM check_leases WHERE monitor_id = $1 AND token = $6),
     history AS (
       INSERT INTO check_runs (monitor_id, checked_at, duration_ms, outcome, http_status, manual_check_id, issues, changes)
       VALUES ($1, $2::timestamptz, $7, $8, $9, $10, NULLIF($5::jsonb, '[]'::jsonb), $11::jsonb)
     )
     UPDATE monitors SET last_checked_at = $2::timestamptz,
       next_check_at = LEAST(COALESCE($3::timestamptz, next_check_at), $12::timestamptz),
       last_change_at = CASE WHEN $4 THEN $2::timestamptz ELSE last_change_at END,
       last_issues = $5::jsonb
     WHERE id = $1`,
    [
      id, outcome.checkedAt, outcome.nextCheckAt, outcome.changes.length > 0, JSON.stringify(outcome.issues), token,
      run.duration_ms, run.outcome, run.http_status, run.manual_check_id, outcome.changes.length > 0 ? JSON.stringify(outcome.changes) : null,
      outcome.recheckAt,
    ],
  );
}
