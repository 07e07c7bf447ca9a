import type { CheckIssue } from '../domain/issues.ts';
import type { Queryable } from './database.ts';
import type { CheckRunFacts } from './check-runs-store.ts';

// The engine's writes to a monitor's check state (the narrow check_state row,
// never the wide monitors row): schedule and the outcome of a check.
// (Creating and editing monitors belongs to the monitors service.)

/** A check was skipped (site backoff, allowance): the schedule moves on and the reason is shown. */
export async function recordSkippedCheck(db: Queryable, id: string, nextCheckAt: Date, issues: CheckIssue[]): Promise<void> {
  await db.query('UPDATE check_state SET next_check_at = $2::timestamptz, last_issues = $3::jsonb WHERE monitor_id = $1', [id, nextCheckAt, JSON.stringify(issues)]);
}

/** Moves an overdue monitor to its next slot without checking it (see nextDueAt). */
export async function rescheduleMonitor(db: Queryable, id: string, nextCheckAt: Date): Promise<void> {
  await db.query('UPDATE check_state SET next_check_at = $2::timestamptz WHERE monitor_id = $1', [id, nextCheckAt]);
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
    /** the check failed: the page did not load, or a target could not be read */
    failed: boolean;
  },
): Promise<FailingTransition> {
  const { run } = outcome;
  const rows = await db.query<{ was: Date | null; now: Date | null; failures: number }>(
    `WITH released AS (DELETE FROM check_leases WHERE monitor_id = $1 AND token = $6),
     history AS (
       INSERT INTO check_runs (monitor_id, checked_at, duration_ms, outcome, http_status, manual_check_id, issues, changes)
       VALUES ($1, $2::timestamptz, $7, $8, $9, $10, NULLIF($5::jsonb, '[]'::jsonb), $11::jsonb)
     )
     UPDATE check_state s SET last_checked_at = $2::timestamptz,
       next_check_at = LEAST(COALESCE($3::timestamptz, s.next_check_at), $12::timestamptz),
       last_change_at = CASE WHEN $4 THEN $2::timestamptz ELSE s.last_change_at END,
       last_issues = $5::jsonb,
       consecutive_failures = CASE WHEN $13 THEN s.consecutive_failures + 1 ELSE 0 END,
       failing_since = CASE
         WHEN NOT $13 THEN NULL
         WHEN s.failing_since IS NULL AND s.consecutive_failures + 1 >= m.failing_after THEN $2::timestamptz
         ELSE s.failing_since END
     FROM monitors m, (SELECT failing_since AS was FROM check_state WHERE monitor_id = $1) previous
     WHERE s.monitor_id = $1 AND m.id = $1
     RETURNING previous.was, s.failing_since AS now, s.consecutive_failures AS failures`,
    [
      id, outcome.checkedAt, outcome.nextCheckAt, outcome.changes.length > 0, JSON.stringify(outcome.issues), token,
      run.duration_ms, run.outcome, run.http_status, run.manual_check_id, outcome.changes.length > 0 ? JSON.stringify(outcome.changes) : null,
      outcome.recheckAt, outcome.failed,
    ],
  );
  const row = rows[0];
  if (!row || (row.was === null) === (row.now === null)) return null;
  return row.now !== null ? { event: 'monitor.failing', since: row.now, failures: row.failures } : { event: 'monitor.recovered', since: row.was!, failures: 0 };
}

/** A check that made the monitor failing, or healthy again; null when its state stayed. */
export type FailingTransition = { event: 'monitor.failing' | 'monitor.recovered'; since: Date; failures: number } | null;
