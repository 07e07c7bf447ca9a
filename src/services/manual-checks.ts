import type { Static } from '@sinclair/typebox';
import type { ReceiptSchema } from '../schemas/checks.ts';
import { randomUUID } from 'node:crypto';
import { nextUtcDay, type Clock } from '../clock.ts';
import { AppError } from '../errors.ts';
import type { CheckIssue } from '../domain/issues.ts';
import { expiresAt, isTerminal, RECEIPT_DAYS } from '../domain/manual-check.ts';
import { METRICS } from '../domain/usage-metrics.ts';
import type { Database, Queryable } from '../store/database.ts';
import { addToCounter, lockCounter } from '../store/counters-store.ts';
import {
  cancelQueuedChecks,
  expireQueuedChecks,
  findManualCheck,
  findQueuedCheck,
  insertManualCheck,
  type ManualCheckRow,
} from '../store/manual-checks-store.ts';
import { lockMonitor } from '../store/monitors-store.ts';
import { runIdempotent, type IdempotentOutcome } from './idempotency.ts';
import { periodStart, secondsUntil } from '../domain/periods.ts';
import type { Principal } from './tokens.ts';

// Manual checks (POST /monitors/{id}/checks, GET /checks/{id}). A request only
// queues the monitor for the workers; the receipt then follows the
// specification's states: queued → running → succeeded | failed, or queued →
// expired | cancelled.

export interface ManualCheckDeps {
  db: Database;
  clock: Clock;
}

/** Seconds callers are asked to wait between polls of a receipt. */
export const POLL_SECONDS = 60;

export type Receipt = Static<typeof ReceiptSchema>;

export function receiptView(row: ManualCheckRow): Receipt {
  const iso = (d: Date | null) => d?.toISOString() ?? null;
  return {
    check_id: row.id,
    monitor_id: row.monitor_id,
    status: row.status,
    requested_at: row.requested_at.toISOString(),
    started_at: iso(row.started_at),
    finished_at: iso(row.finished_at),
    changes: row.changes,
    issues: row.issues,
  };
}

/**
 * Queues a manual check, exactly once per Idempotency-Key. An outstanding
 * request for the monitor is returned as it is, without a new daily charge.
 */
export async function requestManualCheck(
  deps: ManualCheckDeps,
  principal: Principal,
  monitorId: string,
  body: Record<string, never>,
  idempotencyKey: string | string[] | undefined,
): Promise<IdempotentOutcome<Receipt>> {
  // The monitor is part of what the key stands for: the same key for another monitor is a different request.
  return runIdempotent(deps, principal, 'request_check', idempotencyKey, { monitor_id: monitorId, body }, async (tx) => {
    const now = deps.clock.now();
    const monitor = await lockMonitor(tx, principal.accountId, monitorId);
    if (!monitor) throw new AppError('not_found', 'monitor not found');
    if (monitor.status !== 'active') throw new AppError('check_not_allowed', 'the monitor is paused; resume it to request a check');
    await expireQueuedChecks(tx, now, monitorId);
    const pending = await findQueuedCheck(tx, monitorId);
    if (pending) return receiptView(pending);

    const day = periodStart(METRICS.manualChecks, now);
    const used = await lockCounter(tx, principal.accountId, METRICS.manualChecks.name, day);
    if (used >= principal.plan.manual_checks_per_day) {
      throw new AppError('check_limited', `at most ${principal.plan.manual_checks_per_day} manual checks are accepted per UTC day`, {
        retryAfter: secondsUntil(nextUtcDay(now), now),
      });
    }
    await addToCounter(tx, principal.accountId, METRICS.manualChecks.name, day, 1);
    const row = await insertManualCheck(tx, {
      id: randomUUID(),
      account_id: principal.accountId,
      monitor_id: monitorId,
      requested_at: now,
      expires_at: expiresAt(now),
    });
    return receiptView(row);
  });
}

/** GET /checks/{id}: the account's receipt while it is kept (seven days). */
export async function getReceipt(
  deps: ManualCheckDeps,
  principal: Principal,
  checkId: string,
): Promise<{ receipt: Receipt; terminal: boolean }> {
  const now = deps.clock.now();
  const found = await findManualCheck(deps.db, principal.accountId, checkId);
  if (!found || found.requested_at.getTime() <= now.getTime() - RECEIPT_DAYS * 86_400_000)
    throw new AppError('not_found', 'check not found');
  // Expiry is applied on read too, so a receipt never shows queued past its 30 minutes between scheduler cycles.
  const expired = found.status === 'queued' && found.expires_at <= now ? await expireAndReread(deps, principal, found) : found;
  return { receipt: receiptView(expired), terminal: isTerminal(expired.status) };
}

async function expireAndReread(deps: ManualCheckDeps, principal: Principal, row: ManualCheckRow): Promise<ManualCheckRow> {
  await expireQueuedChecks(deps.db, deps.clock.now(), row.monitor_id);
  return (await findManualCheck(deps.db, principal.accountId, row.id)) ?? row;
}

export type CancelReason = 'paused' | 'deleted' | 'targets_changed';

const CANCEL_MESSAGES: Record<CancelReason, string> = {
  paused: 'cancelled: the monitor was paused',
  deleted: 'cancelled: the monitor was deleted',
  targets_changed: "cancelled: the monitor's targets changed",
};

/**
 * queued → cancelled for the monitor's pending request. The monitors service
 * calls this in its own transaction when it pauses or deletes a monitor or
 * changes its targets. A queued request has no check allowance reserved yet
 * (that happens when a worker claims it), so nothing is refunded, and the
 * daily slot stays spent, as the specification says.
 */
export async function cancelPendingChecks(tx: Queryable, monitorId: string, at: Date, reason?: CancelReason): Promise<number> {
  const issue: CheckIssue = {
    target_id: null,
    code: 'check_cancelled',
    message: reason ? CANCEL_MESSAGES[reason] : 'cancelled: the monitor was paused, deleted or its targets changed',
  };
  return cancelQueuedChecks(tx, monitorId, at, issue);
}
