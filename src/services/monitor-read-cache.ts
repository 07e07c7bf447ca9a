import type { Database } from '../store/database.ts';
import type { MonitorKey } from '../store/monitors-store.ts';
import type { MonitorReads, MonitorWithBaselines } from './monitor-reads.ts';

// The monitors GET /monitors/{id} read, kept in memory on the embedded store:
// one process holds its data directory and hears of every change to what the
// read shows (migration 021's triggers announce the monitor's id on
// MONITOR_ROWS_CHANNEL at commit, whoever writes: API, engine, cascades, SQL
// by hand). The store's thread hands an announcement on before the answer to
// the statement that committed it, so a writer's next read already misses.
// A read that was on its way while any announcement arrived is answered but
// not kept: it may have read the row before that change.

export const MONITOR_ROWS_CHANNEL = 'pagewatch_monitor_rows';

export interface MonitorReadCacheOptions {
  /** monitors kept, least recently read dropped first; default 10,000 */
  maxMonitors?: number;
}

export class MonitorReadCache implements MonitorReads {
  private readonly entries = new Map<string, MonitorWithBaselines>();
  /** bumped by every announcement, so a read that raced one does not keep what it read */
  private generation = 0;
  private unlisten: (() => Promise<void>) | null = null;
  private readonly maxMonitors: number;

  /** @param load reads a monitor from the store */
  constructor(
    private readonly load: (key: MonitorKey) => Promise<MonitorWithBaselines | null>,
    options: MonitorReadCacheOptions = {},
  ) {
    this.maxMonitors = options.maxMonitors ?? 10_000;
  }

  /** Listens for announcements, then asks the store's session to make them. */
  async start(db: Database): Promise<void> {
    this.unlisten = await db.listen(
      MONITOR_ROWS_CHANNEL,
      (monitorId) => this.forget(monitorId),
      () => this.clear(),
    );
    await db.exec("SET pagewatch.announce_monitor_rows = 'on'");
  }

  async stop(): Promise<void> {
    await this.unlisten?.();
    this.unlisten = null;
    this.clear();
  }

  async read(key: MonitorKey): Promise<MonitorWithBaselines | null> {
    const kept = this.entries.get(key.id);
    if (kept) {
      // Map order is the recency order eviction relies on.
      this.entries.delete(key.id);
      this.entries.set(key.id, kept);
      return kept.monitor.account_id === key.accountId ? kept : null;
    }
    const generation = this.generation;
    const found = await this.load(key);
    if (found && generation === this.generation && this.unlisten) this.keep(key.id, found);
    return found;
  }

  /** How many monitors are kept. */
  get size(): number {
    return this.entries.size;
  }

  private keep(monitorId: string, found: MonitorWithBaselines): void {
    this.entries.set(monitorId, found);
    if (this.entries.size > this.maxMonitors) this.entries.delete(this.entries.keys().next().value as string);
  }

  private forget(monitorId: string): void {
    this.generation++;
    this.entries.delete(monitorId);
  }

  private clear(): void {
    this.generation++;
    this.entries.clear();
  }
}
