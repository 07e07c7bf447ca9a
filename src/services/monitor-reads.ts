import type { Database } from '../store/database.ts';
import { findMonitorsWithBaselines, type CurrentBaseline, type MonitorKey, type MonitorRow } from '../store/monitors-store.ts';
import { GroupedCalls } from './grouped-calls.ts';

// The reads of GET /monitors/{id}, grouped: requests that arrive while a read
// is on its way are read together in the next statement.

/** most monitors read in one statement */
const MAX_GROUP = 100;

export interface MonitorWithBaselines {
  monitor: MonitorRow;
  baselines: CurrentBaseline[];
}

export type MonitorReads = GroupedCalls<MonitorKey, MonitorWithBaselines | null>;

export function createMonitorReads(db: Database): MonitorReads {
  return new GroupedCalls((keys) => findMonitorsWithBaselines(db, keys), MAX_GROUP);
}
