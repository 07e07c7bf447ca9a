import type { Database } from '../store/database.ts';
import { findMonitorsWithBaselines, type CurrentBaseline, type MonitorKey, type MonitorRow } from '../store/monitors-store.ts';
import { GroupedCalls } from './grouped-calls.ts';
import { MonitorReadCache } from './monitor-read-cache.ts';

// The reads of GET /monitors/{id}. They are grouped: requests that arrive
// while a read is on its way are read together in the next statement. On the
// embedded store, whose one process hears of every change, the monitors read
// are also kept in memory until they change (monitor-read-cache.ts).

/** most monitors read in one statement */
const MAX_GROUP = 100;

export interface MonitorWithBaselines {
  monitor: MonitorRow;
  baselines: CurrentBaseline[];
}

export interface MonitorReads {
  /** The account's monitor with its baselines; null when the account has no such monitor. */
  read(key: MonitorKey): Promise<MonitorWithBaselines | null>;
  stop(): Promise<void>;
}

export async function startMonitorReads(db: Database): Promise<MonitorReads> {
  const grouped = new GroupedCalls((keys: MonitorKey[]) => findMonitorsWithBaselines(db, keys), MAX_GROUP);
  const load = (key: MonitorKey) => grouped.call(key);
  if (db.kind !== 'pglite') return { read: load, stop: async () => undefined };
  const cache = new MonitorReadCache(load);
  await cache.start(db);
  return cache;
}
