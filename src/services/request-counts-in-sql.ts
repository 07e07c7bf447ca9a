import { METRICS } from '../domain/usage-metrics.ts';
import type { Database } from '../store/database.ts';
import { addToCounters, admitApiRequests, readCounters, readRateWindow } from '../store/counters-store.ts';
import { periodStart } from '../domain/periods.ts';
import { WINDOW_SECONDS, type Counted, type RequestCounts, type StoredCounts } from './request-limits.ts';
import type { Principal } from './tokens.ts';
import { GroupedCalls } from './grouped-calls.ts';

// The request counts on PostgreSQL, where several API processes serve one
// account: the account's window and day counter rows are the one place every
// node counts in, which keeps the limits exact across nodes. Counting is group
// admission: the requests that arrive while one admission is on its way go
// together in the next, one statement (migration 019, the same rule as
// countRequest) that commits without waiting for the WAL flush; a request
// alone waits for nothing. Read bytes of successful GETs are not written on
// their own: they wait here and ride on the account's next admission, or are
// written in one batch for all accounts at the next write, and before
// anything reads them here.

/** most requests admitted in one statement */
const MAX_GROUP = 200;

interface PendingBytes {
  accountId: string;
  day: Date;
  bytes: number;
}

export class SqlRequestCounts implements RequestCounts {
  /** read bytes served but not yet charged, by account and day */
  private pending = new Map<string, PendingBytes>();
  /** requests wait here while the admission on its way finishes */
  private readonly admissions = new GroupedCalls<Principal, Counted>((group) => this.admitGroup(group), MAX_GROUP);

  constructor(
    private readonly db: Database,
    /** when a group is admitted: the time its limits are judged at */
    private readonly now: () => Date,
  ) {}

  count(principal: Principal): Promise<Counted> {
    return this.admissions.call(principal);
  }

  /** One statement for the group; on failure its read bytes wait again, and GroupedCalls retries its requests one by one. */
  private async admitGroup(group: Principal[]): Promise<Counted[]> {
    const at = this.now();
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
      return admissions.map((admission) => ({
        counts: {
          windowStart: admission.window_started,
          windowUsed: admission.window_used,
          dayUsed: admission.day_used,
          readBytesUsed: admission.read_bytes_used,
          counted: admission.counted,
        },
        at,
      }));
    } catch (err) {
      // A group fails whole when one request's account was deleted meanwhile.
      for (const [accountId, bytes] of charged) this.add(accountId, dayStart, bytes);
      throw err;
    }
  }

  async read(accountId: string, now: Date): Promise<StoredCounts> {
    const dayStart = periodStart(METRICS.apiRequests, now);
    const [window, counters] = await Promise.all([
      readRateWindow(this.db, accountId),
      readCounters(this.db, accountId, [
        { metric: METRICS.apiRequests.name, periodStart: dayStart },
        { metric: METRICS.readBytes.name, periodStart: dayStart },
      ]),
    ]);
    return {
      window: window && { start: window.window_start, count: window.count },
      requestsUsed: counters.get(METRICS.apiRequests.name) ?? 0,
      readBytesUsed: counters.get(METRICS.readBytes.name) ?? 0,
    };
  }

  addReadBytes(accountId: string, day: Date, bytes: number, usedAtAdmission: number): number {
    this.add(accountId, day, bytes);
    // What the admission saw, plus this body: other nodes' reads since then show on the next response.
    return usedAtAdmission + bytes;
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

  /** Charges the read bytes waiting here; on failure they wait for the next write. */
  async write(): Promise<void> {
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
      for (const p of taken) this.add(p.accountId, p.day, p.bytes);
      throw err;
    }
  }
}
