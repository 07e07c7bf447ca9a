// When a failed notification is tried again (DESIGN §8: exponential backoff
// for about a day). The delay doubles from one minute and is capped at six
// hours: attempts go out at about 0, 1, 3, 7, 15, 31 minutes, 1, 2, 4, 8.5,
// 14.5 and 20.5 hours after the notification was queued; the next would land past 24
// hours, so the notification fails there. A receiver's Retry-After is honoured: it can
// only push an attempt later, never sooner than the backoff.

export const RETRY_WINDOW_MS = 24 * 3_600_000;
const FIRST_DELAY_MS = 60_000;
const MAX_DELAY_MS = 6 * 3_600_000;

export function backoffDelayMs(failedAttempts: number): number {
  return Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** Math.max(0, failedAttempts - 1));
}

/**
 * The time of the next attempt after `failedAttempts` failures (this one
 * included), or null when it would fall outside the retry window that
 * started when the notification was queued.
 */
export function nextAttemptAt(input: { failedAttempts: number; queuedAt: Date; now: Date; retryAfterSeconds?: number }): Date | null {
  const delay = Math.max(backoffDelayMs(input.failedAttempts), (input.retryAfterSeconds ?? 0) * 1000);
  const next = input.now.getTime() + delay;
  return next > input.queuedAt.getTime() + RETRY_WINDOW_MS ? null : new Date(next);
}
