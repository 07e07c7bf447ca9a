import { METRICS } from '../domain/usage-metrics.ts';
import type { Database } from '../store/database.ts';
import { addToCounters, readCounters, readRateWindow, saveRateWindows } from '../store/counters-store.ts';
import { periodStart } from '../domain/periods.ts';
import { countRequest, windowEnd, type Counted, type RequestCounts, type StoredCounts } from './request-limits.ts';
import type { Principal } from './tokens.ts';

// The request counts on the embedded store (PGlite). Only one process can open
// its data directory, so this process sees every request and counts them
// exactly in memory: an admission is a few arithmetic operations, no query.
// The counts are written behind to the store (RequestLimits writes every
// FLUSH_INTERVAL_MS and at shutdown) and read back from it when an account is
// first seen after a start. A crash (kill -9, power loss) forgets at most the
// counts of the last interval.

interface Window {
  start: Date;
  count: number;
  dirty: boolean;
}

interface DayCounts {
  accountId: string;
  day: Date;
  requests: number;
  readBytes: number;
  /** counted here but not yet written to the store */
  unwrittenRequests: number;
  unwrittenBytes: number;
}

export class InMemoryRequestCounts implements RequestCounts {
  private readonly windows = new Map<string, Window>();
  private readonly days = new Map<string, DayCounts>();
  /** counts of a day that has ended, until written */
  private retired: DayCounts[] = [];
  private readonly loading = new Map<string, Promise<void>>();

  constructor(private readonly db: Database) {}

  async count(principal: Principal, now: Date): Promise<Counted> {
    for (;;) {
      // From the lookup to the return nothing is awaited: admissions of one account are judged one at a time.
      const counts = this.inMemory(principal.accountId, now);
      if (!counts) {
        await this.load(principal.accountId, now);
        continue;
      }
      const { window, day } = counts;
      const judged = countRequest(principal.plan, window, day.requests, now);
      if (judged.windowStart !== window.start || judged.counted) window.dirty = true;
      window.start = judged.windowStart;
      window.count = judged.windowUsed + (judged.counted ? 1 : 0);
      if (judged.counted) {
        day.requests++;
        day.unwrittenRequests++;
      }
      return { counts: { ...judged, readBytesUsed: day.readBytes }, at: now };
    }
  }

  async read(accountId: string, now: Date): Promise<StoredCounts> {
    let counts = this.inMemory(accountId, now);
    while (!counts) {
      await this.load(accountId, now);
      counts = this.inMemory(accountId, now);
    }
    return { window: counts.window, requestsUsed: counts.day.requests, readBytesUsed: counts.day.readBytes };
  }

  addReadBytes(accountId: string, day: Date, bytes: number, usedAtAdmission: number): number {
    let counts = this.days.get(accountId);
    if (!counts) {
      // Forgotten while the response was made (its day ended): the charge is still written.
      counts = this.newDay(accountId, day, 0, usedAtAdmission);
      this.retired.push(counts);
    }
    counts.readBytes += bytes;
    counts.unwrittenBytes += bytes;
    return counts.readBytes;
  }

  /** The account's window and today's counts when in memory. */
  private inMemory(accountId: string, now: Date): { window: Window; day: DayCounts } | null {
    const window = this.windows.get(accountId);
    const day = this.days.get(accountId);
    return window && day && day.day.getTime() === periodStart(METRICS.apiRequests, now).getTime() ? { window, day } : null;
  }

  /** Reads the account's window and the day's counts from the store (one load at a time per account and day). */
  private load(accountId: string, now: Date): Promise<void> {
    const today = periodStart(METRICS.apiRequests, now);
    const key = `${accountId} ${today.toISOString()}`;
    let load = this.loading.get(key);
    if (!load) {
      load = this.readStored(accountId, today).finally(() => this.loading.delete(key));
      this.loading.set(key, load);
    }
    return load;
  }

  private async readStored(accountId: string, today: Date): Promise<void> {
    const [stored, counters] = await Promise.all([
      this.windows.has(accountId) ? null : readRateWindow(this.db, accountId),
      readCounters(this.db, accountId, [
        { metric: METRICS.apiRequests.name, periodStart: today },
        { metric: METRICS.readBytes.name, periodStart: today },
      ]),
    ]);
    if (!this.windows.has(accountId)) {
      this.windows.set(accountId, { start: stored?.window_start ?? new Date(0), count: stored?.count ?? 0, dirty: false });
    }
    const previous = this.days.get(accountId);
    if (previous?.day.getTime() === today.getTime()) return;
    if (previous) this.retired.push(previous);
    const requests = counters.get(METRICS.apiRequests.name) ?? 0;
    this.days.set(accountId, this.newDay(accountId, today, requests, counters.get(METRICS.readBytes.name) ?? 0));
  }

  private newDay(accountId: string, day: Date, requests: number, readBytes: number): DayCounts {
    return { accountId, day, requests, readBytes, unwrittenRequests: 0, unwrittenBytes: 0 };
  }

  /** Writes what changed since the last write; on failure keeps it for the next. */
  async write(now: Date): Promise<void> {
    const dirtyWindows = [...this.windows].filter(([, w]) => w.dirty);
    const days = [...this.days.values(), ...this.retired].filter((d) => d.unwrittenRequests > 0 || d.unwrittenBytes > 0);
    const taken = days.map((d) => ({ day: d, requests: d.unwrittenRequests, bytes: d.unwrittenBytes }));
    for (const [, w] of dirtyWindows) w.dirty = false;
    for (const d of days) d.unwrittenRequests = d.unwrittenBytes = 0;
    this.retired = [];
    this.forgetIdle(now);
    if (dirtyWindows.length === 0 && taken.length === 0) return;
    try {
      await this.db.transaction(async (tx) => {
        await saveRateWindows(
          tx,
          dirtyWindows.map(([accountId, w]) => ({ accountId, windowStart: w.start, count: w.count })),
        );
        await addToCounters(
          tx,
          taken.flatMap(({ day, requests, bytes }) =>
            [
              { accountId: day.accountId, metric: METRICS.apiRequests.name, periodStart: day.day, amount: requests },
              { accountId: day.accountId, metric: METRICS.readBytes.name, periodStart: day.day, amount: bytes },
            ].filter((a) => a.amount > 0),
          ),
        );
      });
    } catch (err) {
      for (const [, w] of dirtyWindows) w.dirty = true;
      for (const { day, requests, bytes } of taken) {
        day.unwrittenRequests += requests;
        day.unwrittenBytes += bytes;
        if (this.days.get(day.accountId) !== day) this.retired.push(day);
      }
      throw err;
    }
  }

  /**
   * Drops accounts whose counts are of a past day, fully written, and whose
   * window has ended: memory holds the accounts active today. Today's counts
   * stay, so a request under way never finds its account's counts gone.
   */
  private forgetIdle(now: Date): void {
    const today = periodStart(METRICS.apiRequests, now).getTime();
    for (const [accountId, window] of this.windows) {
      const day = this.days.get(accountId);
      if (window.dirty || windowEnd(window.start) > now) continue;
      if (day && (day.day.getTime() === today || day.unwrittenRequests > 0 || day.unwrittenBytes > 0)) continue;
      this.windows.delete(accountId);
      this.days.delete(accountId);
    }
  }
}
