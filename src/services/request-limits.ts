import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../clock.ts';
import { AppError } from '../errors.ts';
import { METRICS } from '../domain/usage-metrics.ts';
import type { Plan } from '../domain/plans.ts';
import type { Principal } from './tokens.ts';
import { periodEnd, periodStart, secondsUntil } from '../domain/periods.ts';

// The account's API limits (specification "Limits"): 60 requests per window
// that begins with the first request after the previous one expired, 5,000 per
// UTC day, and the day's read bytes. They are judged here, on both stores; only
// where the counts are kept differs, behind RequestCounts: in memory and
// written behind on the embedded store (request-counts-in-memory.ts), one
// grouped SQL statement on PostgreSQL (request-counts-in-sql.ts).

export const WINDOW_SECONDS = 60;
/** How often the counts held in this process are written to the store. */
const FLUSH_INTERVAL_MS = 1000;

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
function underLimits(plan: Plan, windowUsed: number, dayUsed: number): boolean {
  return windowUsed < plan.requests_per_minute && dayUsed < plan.requests_per_day;
}

/**
 * The counting rule (migration 019's statement applies the same on
 * PostgreSQL): a window begins with the first request after the previous one
 * ended, and a request is counted when it is under both request limits.
 * Answers the counts the request is judged on, read bytes apart.
 */
export function countRequest(
  plan: Plan,
  window: { start: Date; count: number },
  dayUsed: number,
  now: Date,
): Omit<Counts, 'readBytesUsed'> {
  const restarted = windowEnd(window.start) <= now;
  const windowStart = restarted ? now : window.start;
  const windowUsed = restarted ? 0 : window.count;
  return { windowStart, windowUsed, dayUsed, counted: underLimits(plan, windowUsed, dayUsed) };
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

/** A request's counts, and the time its limits are judged at. */
export interface Counted {
  counts: Counts;
  at: Date;
}

/** An account's counts as they stand, nothing counted. */
export interface StoredCounts {
  window: { start: Date; count: number } | null;
  requestsUsed: number;
  readBytesUsed: number;
}

/** Where the request counts are kept: the one thing that differs between the stores. */
export interface RequestCounts {
  /** Counts the request by countRequest's rule, at `now` or at a time of its own; answers the counts it was judged on. */
  count(principal: Principal, now: Date): Promise<Counted>;
  read(accountId: string, now: Date): Promise<StoredCounts>;
  /** Adds a body's bytes to the account's `day`; answers the day's read bytes used as far as this process knows. */
  addReadBytes(accountId: string, day: Date, bytes: number, usedAtAdmission: number): number;
  /** Writes what this process holds to the store; what fails stays for the next write (and the error is thrown). */
  write(now: Date): Promise<void>;
}

/** The request limits, judged the same way whichever store keeps the counts. */
export class RequestLimits implements RequestLimiter {
  private flushing: Promise<void> = Promise.resolve();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly counts: RequestCounts,
    private readonly deps: LimiterDeps,
    private readonly log: FastifyBaseLogger,
  ) {
    this.timer = setInterval(() => void this.flush(), FLUSH_INTERVAL_MS).unref();
  }

  async admit(principal: Principal, isRead: boolean): Promise<Admission> {
    const { counts, at } = await this.counts.count(principal, this.deps.clock.now());
    return judge(principal.plan, counts, isRead, at);
  }

  async peek(principal: Principal): Promise<LimitSnapshot> {
    // What waits in this process to be written is seen, on any node, once written.
    await this.flush();
    const now = this.deps.clock.now();
    const { window, requestsUsed, readBytesUsed } = await this.counts.read(principal.accountId, now);
    return snapshot(principal.plan, window, requestsUsed, readBytesUsed, now);
  }

  chargeReadBytes(principal: Principal, bytes: number, admitted: LimitState): number {
    const day = periodStart(METRICS.readBytes, this.deps.clock.now());
    const used = this.counts.addReadBytes(principal.accountId, day, bytes, admitted.readBytesLimit - admitted.readBytesRemaining);
    return Math.max(0, principal.plan.read_bytes_per_day - used);
  }

  flush(): Promise<void> {
    this.flushing = this.flushing.then(() =>
      this.counts.write(this.deps.clock.now()).catch((err: unknown) => {
        this.log.error({ err }, 'writing API request counts to the store failed; retrying');
      }),
    );
    return this.flushing;
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}
