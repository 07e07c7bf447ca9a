// The manual-check receipt's life cycle (specification, "Manual-check
// receipt"; DESIGN §4 and §7) as pure functions. The store applies a
// transition with a conditional update on the current status, so two workers
// can never both move the same receipt.

export const CHECK_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'cancelled', 'expired'] as const;
export type CheckStatus = (typeof CHECK_STATUSES)[number];

/**
 * claim: a worker takes the queued request; finish_ok / finish_failed: the
 * worker's outcome; expire: 30 minutes passed unclaimed; cancel: the monitor
 * was paused or deleted, its targets changed, or Pro access was lost.
 */
export type CheckEvent = 'claim' | 'finish_ok' | 'finish_failed' | 'expire' | 'cancel';

export type TransitionResult = { ok: true; status: CheckStatus } | { ok: false; from: CheckStatus; event: CheckEvent; message: string };

/** Receipts are readable for seven days. */
export const RECEIPT_DAYS = 7;

/** A queued request not claimed within this time expires. */
export const QUEUED_EXPIRY_MINUTES = 30;

const MS_PER_MINUTE = 60_000;

// Only queued work can expire or be cancelled: once running, the check is
// under way and ends as succeeded or failed (the spec's table has no other
// exit from running). Terminal statuses have no moves at all.
const MOVES: Readonly<Record<CheckStatus, Partial<Record<CheckEvent, CheckStatus>>>> = {
  queued: { claim: 'running', expire: 'expired', cancel: 'cancelled' },
  running: { finish_ok: 'succeeded', finish_failed: 'failed' },
  succeeded: {},
  failed: {},
  cancelled: {},
  expired: {},
};

/** succeeded, failed, cancelled and expired never change again. */
export function isTerminal(status: CheckStatus): boolean {
  return status !== 'queued' && status !== 'running';
}

/** When a request made at `requestedAt` expires if still queued. */
export function expiresAt(requestedAt: Date): Date {
  return new Date(requestedAt.getTime() + QUEUED_EXPIRY_MINUTES * MS_PER_MINUTE);
}

/** The status after `event`, or why the move is not allowed from `status`. */
export function transition(status: CheckStatus, event: CheckEvent): TransitionResult {
  const next = MOVES[status][event];
  if (next !== undefined) return { ok: true, status: next };
  const message = isTerminal(status) ? `check is already ${status}` : `a ${status} check cannot take the event ${event}`;
  return { ok: false, from: status, event, message };
}

/**
 * The fastest plan interval (DESIGN §7): a manual check runs no sooner than
 * `minIntervalMinutes` after the monitor's previous capture, and stays queued
 * until then. Null when nothing holds it back (no capture yet); a plan
 * minimum of 0 gives the previous capture time itself, which is never in the
 * future.
 */
export function earliestRunAt(lastCaptureAt: Date | null, minIntervalMinutes: number): Date | null {
  if (lastCaptureAt === null) return null;
  if (!Number.isFinite(minIntervalMinutes) || minIntervalMinutes < 0) {
    throw new RangeError(`invalid minimum interval: ${minIntervalMinutes}`);
  }
  return new Date(lastCaptureAt.getTime() + minIntervalMinutes * MS_PER_MINUTE);
}
