import type { Database } from './database.ts';

// PGlite runs no autovacuum: the row versions every check and request leave
// behind would never be reclaimed, and the embedded store would grow for as
// long as it runs. Housekeeping vacuums the tables that are written all the
// time, one table per statement, so requests are served between them.

export const HOT_TABLES = [
  'check_state',
  'monitors',
  'check_leases',
  'check_runs',
  'baselines',
  'usage_counters',
  'rate_windows',
  'manual_checks',
  'notification_outbox',
  'notification_attempts',
  'host_backoff',
  'texts',
  'changes',
  'previews',
  'preview_spacing',
  'idempotency_keys',
  'api_tokens',
  'dashboard_sessions',
  'accounts',
] as const;

/** VACUUM (ANALYZE) of each hot table in turn; the milliseconds each took. */
export async function vacuumHotTables(db: Database): Promise<Record<string, number>> {
  const took: Record<string, number> = {};
  for (const table of HOT_TABLES) {
    const started = performance.now();
    await db.exec(`VACUUM (ANALYZE) ${table}`);
    took[table] = Math.round(performance.now() - started);
    // Let waiting requests run between tables.
    await new Promise((resolve) => setImmediate(resolve));
  }
  return took;
}
