import type { FastifyBaseLogger } from 'fastify';
import { METRICS } from '../domain/usage-metrics.ts';
import type { Database } from '../store/database.ts';
import { addToCounters, admitApiRequest, readCounters, readRateWindow } from '../store/counters-store.ts';
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

// Request limits on PostgreSQL, where several API processes serve one account:
// the account's window and day counter rows are the one place every node
// counts in, which keeps the limits exact across nodes. An admission is one
// statement (migration 010) that commits without waiting for the WAL flush.
// Read bytes of successful GETs are not written on their own: they wait here
// and ride on the account's next admission, or are written in one batch for
// all accounts every FLUSH_INTERVAL_MS, and before anything reads them here.

export const FLUSH_INTERVAL_MS = 1000;

interface PendingBytes {
  accountId: string;
  day: Date;
  bytes: number;
}

export class SharedLimiter implements RequestLimiter {
  /** read bytes served but not yet charged, by account and day */
  private pending = new Map<string, PendingBytes>();
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
    const now = this.deps.clock.now();
    const { plan, accountId } = principal;
    const dayStart = periodStart(METRICS.apiRequests, now);
    const charge = this.take(accountId, dayStart);
    let row;
    try {
      row = await admitApiRequest(this.db, {
        accountId,
        at: now,
        windowSeconds: WINDOW_SECONDS,
        requestsMetric: METRICS.apiRequests.name,
        readBytesMetric: METRICS.readBytes.name,
        dayStart,
        minuteLimit: plan.requests_per_minute,
        dayLimit: plan.requests_per_day,
        chargeDay: dayStart,
        chargeBytes: charge,
      });
    } catch (err) {
      this.add(accountId, dayStart, charge);
      throw err;
    }
    const { window_started: windowStart, window_used: windowUsed, day_used: dayUsed, read_bytes_used: readBytesUsed, counted } = row;
    return judge(plan, { windowStart, windowUsed, dayUsed, readBytesUsed, counted }, isRead, now);
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
