import type { Clock } from '../clock.ts';
import { AppError } from '../errors.ts';
import { METRICS } from '../domain/metrics.ts';
import type { Database } from '../store/database.ts';
import { addToCounter, admitApiRequest, readCounters, readRateWindow } from '../store/counters-store.ts';
import type { Principal } from './tokens.ts';
import { periodEnd, periodStart, secondsUntil } from './periods.ts';

const WINDOW_SECONDS = 60;

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

interface LimitDeps {
  db: Database;
  clock: Clock;
}

function windowEnd(start: Date): Date {
  return new Date(start.getTime() + WINDOW_SECONDS * 1000);
}

/**
 * Counts one request against the account's minute window and UTC day, in one
 * statement so the limits are exact across concurrent requests and API nodes.
 * A request over either limit is refused and not counted; a read is also
 * refused once the day's read bytes are spent.
 */
export async function admitRequest(deps: LimitDeps, principal: Principal, isRead: boolean): Promise<Admission> {
  const now = deps.clock.now();
  const { plan, accountId } = principal;
  const admission = await admitApiRequest(deps.db, {
    accountId,
    at: now,
    windowSeconds: WINDOW_SECONDS,
    requestsMetric: METRICS.apiRequests.name,
    readBytesMetric: METRICS.readBytes.name,
    dayStart: periodStart(METRICS.apiRequests, now),
    minuteLimit: plan.requests_per_minute,
    dayLimit: plan.requests_per_day,
  });
  const { window_started: windowStart, window_used: windowUsed, day_used: dayUsed, read_bytes_used: readBytesUsed } = admission;
  const counted = admission.counted ? 1 : 0;
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

/** The limit state without counting anything (for refused, uncounted requests). */
export async function peekLimits(deps: LimitDeps, principal: Principal): Promise<LimitState> {
  const now = deps.clock.now();
  const { plan, accountId } = principal;
  const dayStart = periodStart(METRICS.apiRequests, now);
  const window = await readRateWindow(deps.db, accountId);
  const live = window && windowEnd(window.window_start) > now ? window : null;
  const counters = await readCounters(deps.db, accountId, [
    { metric: METRICS.apiRequests.name, periodStart: dayStart },
    { metric: METRICS.readBytes.name, periodStart: dayStart },
  ]);
  return {
    minuteLimit: plan.requests_per_minute,
    minuteRemaining: Math.max(0, plan.requests_per_minute - (live?.count ?? 0)),
    minuteReset: Math.ceil(windowEnd(live?.window_start ?? now).getTime() / 1000),
    dayLimit: plan.requests_per_day,
    dayRemaining: Math.max(0, plan.requests_per_day - (counters.get(METRICS.apiRequests.name) ?? 0)),
    readBytesLimit: plan.read_bytes_per_day,
    readBytesRemaining: Math.max(0, plan.read_bytes_per_day - (counters.get(METRICS.readBytes.name) ?? 0)),
  };
}

/** Charges the bytes of a successful GET body; returns the bytes left today. */
export async function chargeReadBytes(deps: LimitDeps, principal: Principal, bytes: number): Promise<number> {
  const now = deps.clock.now();
  const used = await addToCounter(deps.db, principal.accountId, METRICS.readBytes.name, periodStart(METRICS.readBytes, now), bytes);
  return Math.max(0, principal.plan.read_bytes_per_day - used);
}
