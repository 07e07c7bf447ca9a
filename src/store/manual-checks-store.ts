import { AppError } from '../errors.ts';
import type { CheckIssue } from '../domain/issues.ts';
import type { CheckStatus } from '../domain/manual-check.ts';
import type { Queryable } from './database.ts';

// Every status change is a conditional update on the current status (the
// domain's transition table), so two processes can never both move a receipt.

export interface ManualCheckRow {
  id: string;
  account_id: string;
  monitor_id: string;
  status: CheckStatus;
  requested_at: Date;
  expires_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
  changes: string[];
  issues: CheckIssue[];
}

export async function insertManualCheck(
  db: Queryable,
  row: Pick<ManualCheckRow, 'id' | 'account_id' | 'monitor_id' | 'requested_at' | 'expires_at'>,
): Promise<ManualCheckRow> {
  const rows = await db.query<ManualCheckRow>(
    `INSERT INTO manual_checks (id, account_id, monitor_id, status, requested_at, expires_at)
     VALUES ($1, $2, $3, 'queued', $4::timestamptz, $5::timestamptz) RETURNING *`,
    [row.id, row.account_id, row.monitor_id, row.requested_at, row.expires_at],
  );
  const [inserted] = rows;
  if (inserted === undefined) throw new AppError('internal_error', 'inserting a manual check returned no row');
  return inserted;
}

export async function findManualCheck(db: Queryable, accountId: string, id: string): Promise<ManualCheckRow | null> {
  const rows = await db.query<ManualCheckRow>('SELECT * FROM manual_checks WHERE id = $1 AND account_id = $2', [id, accountId]);
  return rows[0] ?? null;
}

/** The monitor's queued request, if any. */
export async function findQueuedCheck(db: Queryable, monitorId: string): Promise<ManualCheckRow | null> {
  const rows = await db.query<ManualCheckRow>("SELECT * FROM manual_checks WHERE monitor_id = $1 AND status = 'queued'", [monitorId]);
  return rows[0] ?? null;
}

/** queued → expired for requests unclaimed past their expiry (optionally of one monitor). */
export async function expireQueuedChecks(db: Queryable, at: Date, monitorId: string | null = null): Promise<number> {
  const rows = await db.query(
    `UPDATE manual_checks SET status = 'expired', finished_at = expires_at
     WHERE status = 'queued' AND expires_at <= $1::timestamptz AND ($2::uuid IS NULL OR monitor_id = $2::uuid) RETURNING id`,
    [at, monitorId],
  );
  return rows.length;
}

/** queued → cancelled for one monitor (paused, deleted, targets changed). */
export async function cancelQueuedChecks(db: Queryable, monitorId: string, at: Date, issue: CheckIssue): Promise<number> {
  const rows = await db.query(
    `UPDATE manual_checks SET status = 'cancelled', finished_at = $2::timestamptz, issues = $3::jsonb
     WHERE monitor_id = $1 AND status = 'queued' RETURNING id`,
    [monitorId, at, JSON.stringify([issue])],
  );
  return rows.length;
}

/** queued → cancelled for every account whose plan is not among `proPlans`. */
export async function cancelChecksWithoutPro(db: Queryable, proPlans: string[], at: Date, issue: CheckIssue): Promise<number> {
  const rows = await db.query(
    `UPDATE manual_checks mc SET status = 'cancelled', finished_at = $2::timestamptz, issues = $3::jsonb
     FROM accounts a WHERE a.id = mc.account_id AND mc.status = 'queued' AND NOT (a.plan = ANY($1::text[])) RETURNING mc.id`,
    [proPlans, at, JSON.stringify([issue])],
  );
  return rows.length;
}

/** queued → running when a worker claims it. */
export async function startManualCheck(db: Queryable, id: string, at: Date): Promise<boolean> {
  const rows = await db.query(
    "UPDATE manual_checks SET status = 'running', started_at = $2::timestamptz WHERE id = $1 AND status = 'queued' RETURNING id",
    [id, at],
  );
  return rows.length > 0;
}

/** running → succeeded | failed. */
export async function finishManualCheck(
  db: Queryable,
  id: string,
  outcome: { status: 'succeeded' | 'failed'; at: Date; changes: string[]; issues: CheckIssue[] },
): Promise<void> {
  await db.query(
    `UPDATE manual_checks SET status = $2, finished_at = $3::timestamptz, changes = $4::jsonb, issues = $5::jsonb
     WHERE id = $1 AND status = 'running'`,
    [id, outcome.status, outcome.at, JSON.stringify(outcome.changes), JSON.stringify(outcome.issues)],
  );
}

/** running → failed for checks whose monitor was deleted while they ran. */
export async function failOrphanedChecks(db: Queryable, at: Date, issue: CheckIssue): Promise<number> {
  const rows = await db.query(
    `UPDATE manual_checks mc SET status = 'failed', finished_at = $1::timestamptz, issues = $2::jsonb
     WHERE mc.status = 'running' AND NOT EXISTS (SELECT 1 FROM monitors m WHERE m.id = mc.monitor_id) RETURNING mc.id`,
    [at, JSON.stringify([issue])],
  );
  return rows.length;
}

/** Receipts are readable for seven days; older ones are deleted. */
export async function deleteOldManualChecks(db: Queryable, requestedBefore: Date): Promise<number> {
  const rows = await db.query('DELETE FROM manual_checks WHERE requested_at < $1::timestamptz RETURNING id', [requestedBefore]);
  return rows.length;
}
