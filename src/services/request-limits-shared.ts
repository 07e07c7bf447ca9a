import type { FastifyBaseLogger } from 'fastify';
import { METRICS } from '../domain/usage-metrics.ts';
import type { Database } from '../store/database.ts';
import { addToCounters, admitApiRequests, readCounters, readRateWindow, type ApiAdmission } from '../store/counters-store.ts';
import { periodStart } from '../domain/periods.ts';
import {
  judge,
  snapshot,
  WINDOW_SECONDS,
  type Admission,
  type LimiterDeps,
  type LimitSnapshot,
  type LimitState,
  type RequestLimiter,
} from './request-limits.ts';
import type { Principal } from './tokens.ts';
import { GroupedCalls } from './grouped-calls.ts';

// Request limits on PostgreSQL, where several API processes serve one account:
// the account's window and day counter rows are the one place every node
// counts in, which keeps the limits exact across nodes. Admission is group
// admission: the requests that arrive while one admission is on its way go
// together in the next, one statement (migration 019) that commits without
// waiting for the WAL flush; a request alone waits for nothing.
// Read bytes of successful GETs are not written on their own: they wait here
// and ride on the account's next admission, or are written in one batch for
// all accounts every FLUSH_INTERVAL_MS, and before anything reads them here.

export const FLUSH_INTERVAL_MS = 1000;
/** most requests admitted in one statement */
const MAX_GROUP = 200;

interface Granted {
  admission: ApiAdmission;
  /** when the group was admitted: the time the limits were judged at */
  at: Date;
}

interface PendingBytes {
  accountId: string;
  day: Date;
  bytes: number;
}

export class SharedLimiter implements RequestLimiter {
  /** read bytes served but not yet charged, by account and day */
  private pending = new Map<string, PendingBytes>();
  /** requests wait here while the admission on its way finishes */
  private readonly admissions = new GroupedCalls<Principal, Granted>((group) => this.admitGroup(group), MAX_GROUP);
  private flushing: Promise<void> = Promise.resolve();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly db: Database,
    private readonly deps: LimiterDeps,
    private readonly log: FastifyBaseLogger,
  ) {
    this.timer = setInterval(() => void this.flush(), FLUSH_INTERVAL_MS).unref();
  }

  async admit(principal: Principal, isRead: boolean): Promise<Admission> {
    const { admission, at } = await this.admissions.call(principal);
    const { window_started: windowStart, window_used: windowUsed, day_used: dayUsed, read_bytes_used: readBytesUsed, counted } = admission;
    return judge(principal.plan, { windowStart, windowUsed, dayUsed, readBytesUsed, counted }, isRead, at);
  }

  /** One statement for the group; on failure its read bytes wait again, and GroupedCalls retries its requests one by one. */
  private async admitGroup(group: Principal[]): Promise<Granted[]> {
    const at = this.deps.clock.now();
    const dayStart = periodStart(METRICS.apiRequests, at);
    // An account's pending read bytes ride on its first request of the group.
    const charged = new Map<string, number>();
    const requests = group.map(({ accountId, plan }) => {
      let chargeBytes = 0;
      if (!charged.has(accountId)) {
        chargeBytes = this.take(accountId, dayStart);
        charged.set(accountId, chargeBytes);
      }
      return { accountId, minuteLimit: plan.requests_per_minute, dayLimit: plan.requests_per_day, chargeBytes };
    });
    try {
      const admissions = await admitApiRequests(
        this.db,
        { at, windowSeconds: WINDOW_SECONDS, requestsMetric: METRICS.apiRequests.name, readBytesMetric: METRICS.readBytes.name, dayStart },
        requests,
      );
      return admissions.map((admission) => ({ admission, at }));
    } catch (err) {
      // A group fails whole when one request's account was deleted meanwhile.
      for (const [accountId, bytes] of charged) this.add(accountId, dayStart, bytes);
      throw err;
    }
  }

  async peek(principal: Principal): Promise<LimitSnapshot> {
    await this.flush();
    const now = this.deps.clock.now();
    const dayStart = periodStart(METRICS.apiRequests, now);
    const [window, counters] = await Promise.all([
      readRateWindow(this.db, principal.accountId),
      readCounters(this.db, principal.accountId, [
        { metric: METRICS.apiRequests.name, periodStart: dayStart },
        { metric: METRICS.readBytes.name, periodStart: dayStart },
      ]),
    ]);
    const requests = counters.get(METRICS.apiRequests.name) ?? 0;
    const readBytes = counters.get(METRICS.readBytes.name) ?? 0;
    return snapshot(principal.plan, window && { start: window.window_start, count: window.count }, requests, readBytes, now);
  }

  chargeReadBytes(principal: Principal, bytes: number, admitted: LimitState): number {
    this.add(principal.accountId, periodStart(METRICS.readBytes, this.deps.clock.now()), bytes);
    // What the admission saw, less this body: other nodes' reads since then show on the next response.
    return Math.max(0, admitted.readBytesRemaining - bytes);
  }

  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.write());
    return this.flushing;
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }

  private key(accountId: string, day: Date): string {
    return `${accountId} ${day.toISOString()}`;
  }

  private add(accountId: string, day: Date, bytes: number): void {
    if (bytes <= 0) return;
    const key = this.key(accountId, day);
    const entry = this.pending.get(key);
    if (entry) entry.bytes += bytes;
    else this.pending.set(key, { accountId, day, bytes });
  }

  private take(accountId: string, day: Date): number {
    const key = this.key(accountId, day);
    const bytes = this.pending.get(key)?.bytes ?? 0;
    this.pending.delete(key);
    return bytes;
  }

  private async write(): Promise<void> {
    if (this.pending.size === 0) return;
    const taken = [...this.pending.values()];
    this.pending = new Map();
    try {
      const metric = METRICS.readBytes.name;
      await addToCounters(
        this.db,
        taken.map((p) => ({ accountId: p.accountId, metric, periodStart: p.day, amount: p.bytes })),
      );
    } catch (err) {
      this.log.error({ err }, 'charging read bytes failed; retrying');
      for (const p of taken) this.add(p.accountId, p.day, p.bytes);
    }
  }
}
