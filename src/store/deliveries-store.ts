import { randomUUID } from 'node:crypto';
import type { Queryable } from './database.ts';
import type { ChangeRow } from './changes-store.ts';
import type { NotificationChannel } from './outbox-store.ts';

// Queries of notification delivery over the outbox the engine writes
// (migrations 005 and 006). A row is claimed by moving next_attempt_at ahead
// (the lease) under a fresh lease_token; every later write checks the token.

export interface ClaimedDelivery {
  id: string;
  channel: NotificationChannel;
  token: string;
}

/**
 * Leases up to `limit` due pending rows, oldest notification first; rows
 * locked by another claim are skipped, not waited for.
 */
export async function claimDueDeliveries(db: Queryable, at: Date, leaseSeconds: number, limit: number): Promise<ClaimedDelivery[]> {
  const rows = await db.query<ClaimedDelivery & { created_at: Date }>(
    `WITH due AS (
       SELECT id FROM notification_outbox
       WHERE status = 'pending' AND next_attempt_at <= $1::timestamptz
       ORDER BY next_attempt_at, id LIMIT $3
       FOR UPDATE SKIP LOCKED
     )
     UPDATE notification_outbox o
     SET next_attempt_at = $1::timestamptz + make_interval(secs => $2::int), lease_token = gen_random_uuid()
     FROM due WHERE o.id = due.id
     RETURNING o.id, o.channel, o.lease_token AS token, o.created_at`,
    [at, leaseSeconds, limit],
  );
  // UPDATE … RETURNING keeps no order of its own.
  rows.sort((a, b) => a.created_at.getTime() - b.created_at.getTime() || (a.id < b.id ? -1 : 1));
  return rows.map(({ id, channel, token }) => ({ id, channel, token }));
}

/**
 * The dispatcher's heartbeat: the rows it still holds (same token, still
 * pending) stay leased until `until`, in one statement.
 */
export async function renewDeliveryLeases(db: Queryable, held: ClaimedDelivery[], until: Date): Promise<void> {
  if (held.length === 0) return;
  await db.query(
    `UPDATE notification_outbox o SET next_attempt_at = $3::timestamptz
     FROM unnest($1::uuid[], $2::uuid[]) AS h(id, token)
     WHERE o.id = h.id AND o.lease_token = h.token AND o.status = 'pending'`,
    [held.map((h) => h.id), held.map((h) => h.token), until],
  );
}

export interface LeasedDelivery {
  id: string;
  channel: NotificationChannel;
  event: string;
  attempts: number;
  created_at: Date;
  charged_period: Date | null;
}

/** Locks a row for the rest of the transaction if this claim still holds it. */
export async function lockLeasedDelivery(db: Queryable, claim: ClaimedDelivery): Promise<LeasedDelivery | null> {
  const rows = await db.query<LeasedDelivery>(
    `SELECT id, channel, event, attempts, created_at, charged_period FROM notification_outbox
     WHERE id = $1 AND lease_token = $2 AND status = 'pending' FOR UPDATE`,
    [claim.id, claim.token],
  );
  return rows[0] ?? null;
}

export interface DeliverySubject {
  /** change.detected, monitor.failing or monitor.recovered */
  event: string;
  /** the change of a change.detected; null for a monitor's state events */
  change: ChangeRow | null;
  /** an email grouping a check's changes: all of them, in order (else the one change, or none) */
  changes: ChangeRow[];
  /** monitor events: what the engine recorded with them (failing_since, consecutive_failures, issues, recovered_at) */
  eventData: Record<string, unknown> | null;
  monitor: {
    id: string;
    url: string;
    name: string | null;
    targets: { id: string; label?: string }[];
    email_enabled: boolean;
    webhook_enabled: boolean;
    /** the monitor's own email mode, else the account's: each, daily or weekly */
    email_mode: string;
  };
  account: { id: string; email: string; plan: string; webhook_url: string | null; webhook_secret: string | null; time_zone: string };
}

/** What a row notifies about (a change, or a monitor's state), with its monitor and account as they are now. */
export async function readDeliverySubject(db: Queryable, outboxId: string): Promise<DeliverySubject | null> {
  const rows = await db.query<{
    event: string;
    event_data: Record<string, unknown> | null;
    change: ChangeRow | null;
    monitor: DeliverySubject['monitor'];
    account: DeliverySubject['account'];
  }>(
    `SELECT o.event, o.event_data, CASE WHEN c.id IS NULL THEN NULL ELSE to_jsonb(c.*) END AS change,
       jsonb_build_object('id', m.id, 'url', m.url, 'name', m.name, 'targets', m.targets,
         'email_enabled', m.email_enabled, 'webhook_enabled', m.webhook_enabled,
         'email_mode', COALESCE(m.email_mode, a.email_mode)) AS monitor,
       jsonb_build_object('id', a.id, 'email', a.email, 'plan', a.plan,
         'webhook_url', a.webhook_url, 'webhook_secret', a.webhook_secret, 'time_zone', a.time_zone) AS account
     FROM notification_outbox o
     LEFT JOIN changes c ON c.id = o.change_id
     JOIN monitors m ON m.id = COALESCE(o.monitor_id, c.monitor_id)
     JOIN accounts a ON a.id = o.account_id
     WHERE o.id = $1`,
    [outboxId],
  );
  const row = rows[0];
  if (!row) return null;
  // to_jsonb turns timestamps into strings; the change's view expects a Date.
  const change = row.change && { ...row.change, detected_at: new Date(row.change.detected_at) };
  const grouped = (row.event_data?.change_ids as string[] | undefined) ?? [];
  const changes = grouped.length > 1 ? await readChanges(db, grouped) : change ? [change] : [];
  return { event: row.event, eventData: row.event_data, change, changes, monitor: row.monitor, account: row.account };
}

/** A notice about the account itself (no change, no one monitor): what the move recorded, and the account as it is now. */
export interface AccountNotice {
  event: string;
  eventData: Record<string, unknown>;
  account: { id: string; email: string; time_zone: string };
}

export async function readAccountNotice(db: Queryable, outboxId: string): Promise<AccountNotice | null> {
  const rows = await db.query<AccountNotice>(
    `SELECT o.event, o.event_data AS "eventData", jsonb_build_object('id', a.id, 'email', a.email, 'time_zone', a.time_zone) AS account
     FROM notification_outbox o JOIN accounts a ON a.id = o.account_id
     WHERE o.id = $1`,
    [outboxId],
  );
  return rows[0] ?? null;
}

/** The changes with these ids that still exist (retention may have removed some), in the order given. */
async function readChanges(db: Queryable, ids: string[]): Promise<ChangeRow[]> {
  const rows = await db.query<ChangeRow>('SELECT * FROM changes WHERE id = ANY($1::uuid[])', [ids]);
  return ids.flatMap((id) => rows.filter((r) => r.id === id));
}

export async function markCharged(db: Queryable, id: string, period: Date): Promise<void> {
  await db.query('UPDATE notification_outbox SET charged_period = $2 WHERE id = $1', [id, period]);
}

/** Ends a row without sending it. */
export async function markSkipped(db: Queryable, id: string, reason: string, at: Date): Promise<void> {
  await db.query(
    `UPDATE notification_outbox SET status = 'skipped', skipped_reason = $2, finished_at = $3, lease_token = NULL WHERE id = $1`,
    [id, reason, at],
  );
}

export interface AttemptRecord {
  outboxId: string;
  at: Date;
  responseStatus: number | null;
  durationMs: number;
  outcome: 'delivered' | 'retry' | 'failed';
  error: string | null;
}

/** Logs one send; nothing when the row went away meanwhile (its change was deleted). */
export async function insertAttempt(db: Queryable, attempt: AttemptRecord): Promise<void> {
  await db.query(
    `INSERT INTO notification_attempts (id, outbox_id, attempted_at, response_status, duration_ms, outcome, error)
     SELECT $1, $2, $3, $4, $5, $6, $7 WHERE EXISTS (SELECT 1 FROM notification_outbox WHERE id = $2)`,
    [randomUUID(), attempt.outboxId, attempt.at, attempt.responseStatus, attempt.durationMs, attempt.outcome, attempt.error],
  );
}

/** After a send: delivered, failed for good, or due again at `retryAt`. Counts the attempt. */
export async function settleDelivery(
  db: Queryable,
  id: string,
  result: { status: 'delivered' | 'failed'; at: Date; error: string | null } | { status: 'pending'; retryAt: Date; error: string },
): Promise<void> {
  if (result.status === 'pending') {
    await db.query(
      `UPDATE notification_outbox SET attempts = attempts + 1, next_attempt_at = $2, last_error = $3, lease_token = NULL WHERE id = $1`,
      [id, result.retryAt, result.error],
    );
    return;
  }
  await db.query(
    `UPDATE notification_outbox SET attempts = attempts + 1, status = $2, finished_at = $3, last_error = $4, lease_token = NULL,
       delivered_at = CASE WHEN $2 = 'delivered' THEN $3::timestamptz END
     WHERE id = $1`,
    [id, result.status, result.at, result.error],
  );
}
