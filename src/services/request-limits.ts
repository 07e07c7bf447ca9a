import type { Clock } from '../clock.ts';
import { AppError } from '../errors.ts';
import { METRICS } from '../domain/usage-metrics.ts';
import type { Plan } from '../domain/plans.ts';
import type { Principal } from './tokens.ts';
import { periodEnd, secondsUntil } from '../domain/periods.ts';

// The account's API limits (specification "Limits"): 60 requests per window
// that begins with the first request after the previous one expired, 5,000 per
// UTC day, and the day's read bytes. How the counts are kept depends on the
// store (request-limits-embedded.ts, request-limits-shared.ts); what a count
// means, and the answer to a request, is decided here.

export const WINDOW_SECONDS = 60;

/** The values behind the X-RateLimit-* and X-Read-Bytes-* headers. */
export interface LimitState {
  minuteLimit: number;
  minuteRemaining: number;
  /** Unix seconds when the current window ends */
  minuteReset: number;
  dayLimit: number;
  dayRemaining: number;
  readBytesLimit: number;
  readBytesRemaining: number;
}

export interface Admission {
  state: LimitState;
  /** set when the request is refused (429) */
  rejection: AppError | null;
}

/** The limit state with the day's exact figures (GET /usage). */
export interface LimitSnapshot {
  state: LimitState;
  requestsUsed: number;
  readBytesUsed: number;
}

export interface RequestLimiter {
  /**
   * Counts one request when it is under both request limits; refuses it (not
   * counted) otherwise, and refuses reads once the day's bytes are spent.
   */
  admit(principal: Principal, isRead: boolean): Promise<Admission>;
  /** The limits without counting anything. */
  peek(principal: Principal): Promise<LimitSnapshot>;
  /** Charges the body of a successful GET admitted with `admitted`; returns the read bytes left today. */
  chargeReadBytes(principal: Principal, bytes: number, admitted: LimitState): number;
  /** Writes every count kept in this process to the store. */
  flush(): Promise<void>;
  /** Stops the background writer after a last flush. */
  stop(): Promise<void>;
}

export interface LimiterDeps {
  clock: Clock;
}

/** The counts an admission was judged on (before counting it). */
export interface Counts {
  windowStart: Date;
  windowUsed: number;
  dayUsed: number;
  readBytesUsed: number;
  /** whether this request was counted in the window and the day */
  counted: boolean;
}

export function windowEnd(start: Date): Date {
  return new Date(start.getTime() + WINDOW_SECONDS * 1000);
}

/** Whether a request at `now` is counted, given the counts before it. */
export function underLimits(plan: Plan, windowUsed: number, dayUsed: number): boolean {
  return windowUsed < plan.requests_per_minute && dayUsed < plan.requests_per_day;
}

/** The answer to a request: refused (429) over a limit, and the headers either way. */
export function judge(plan: Plan, counts: Counts, isRead: boolean, now: Date): Admission {
  const { windowStart, windowUsed, dayUsed, readBytesUsed } = counts;
  const counted = counts.counted ? 1 : 0;
  let rejection: AppError | null = null;
  if (windowUsed >= plan.requests_per_minute) {
    rejection = new AppError('rate_limited', `at most ${plan.requests_per_minute} requests per ${WINDOW_SECONDS}-second window`, {
      retryAfter: secondsUntil(windowEnd(windowStart), now),
    });
  } else if (dayUsed >= plan.requests_per_day) {
    rejection = new AppError('rate_limited', `at most ${plan.requests_per_day} requests per UTC day`, {
      retryAfter: secondsUntil(periodEnd(METRICS.apiRequests, now), now),
    });
  } else if (isRead && readBytesUsed >= plan.read_bytes_per_day) {
    rejection = new AppError('rate_limited', 'the daily read-byte allowance is used up', {
      retryAfter: secondsUntil(periodEnd(METRICS.readBytes, now), now),
    });
  }
  return {
    rejection,
    state: {
      minuteLimit: plan.requests_per_minute,
      minuteRemaining: Math.max(0, plan.requests_per_minute - windowUsed - counted),
      minuteReset: Math.ceil(windowEnd(windowStart).getTime() / 1000),
      dayLimit: plan.requests_per_day,
      dayRemaining: Math.max(0, plan.requests_per_day - dayUsed - counted),
      readBytesLimit: plan.read_bytes_per_day,
      readBytesRemaining: Math.max(0, plan.read_bytes_per_day - readBytesUsed),
    },
  };
}

/** The state of an account that is not making a request now (the window shown is the live one, if any). */
export function snapshot(
  plan: Plan,
  window: { start: Date; count: number } | null,
  requestsUsed: number,
  readBytesUsed: number,
  now: Date,
): LimitSnapshot {
  const live = window && windowEnd(window.start) > now ? window : null;
  return {
    requestsUsed,
    readBytesUsed,
    state: {
      minuteLimit: plan.requests_per_minute,
      minuteRemaining: Math.max(0, plan.requests_per_minute - (live?.count ?? 0)),
      minuteReset: Math.ceil(windowEnd(live?.start ?? now).getTime() / 1000),
      dayLimit: plan.requests_per_day,
      dayRemaining: Math.max(0, plan.requests_per_day - requestsUsed),
      readBytesLimit: plan.read_bytes_per_day,
      readBytesRemaining: Math.max(0, plan.read_bytes_per_day - readBytesUsed),
    },
  };
}
