import type { Database } from './database.ts';

// PGlite runs no autovacuum: the row versions every check and request leave
// behind would never be reclaimed, and the embedded store would grow for as
// long as it runs. Housekeeping vacuums the tables that are written all the
// time, one table per statement, so requests are served between them. A
// VACUUM holds the embedded store while it runs, and its time grows with the
// rows written since the last one: a table that takes many writes is also
// vacuumed in slices between the hourly runs (vacuumBusyTables).

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

/** Runs `command` on each table in turn, letting waiting requests run between them; the milliseconds each took. */
async function eachTable(db: Database, command: string, tables: readonly string[]): Promise<Record<string, number>> {
  const took: Record<string, number> = {};
  for (const table of tables) {
    const started = performance.now();
    await db.exec(`${command} ${table}`);
    took[table] = Math.round(performance.now() - started);
    await new Promise((resolve) => setImmediate(resolve));
  }
  return took;
}

/** VACUUM (ANALYZE) of each hot table in turn; the milliseconds each took. */
export function vacuumHotTables(db: Database): Promise<Record<string, number>> {
  return eachTable(db, 'VACUUM (ANALYZE)', HOT_TABLES);
}

/**
 * Rows written to a table since its last vacuum (dead versions and inserts)
 * above which the engine's minute housekeeping vacuums it: small slices hold
 * the embedded store briefly where one hourly VACUUM of a large table held it
 * for long (docs/decisions/0041-housekeeping-vacuum-in-slices.md).
 */
export const VACUUM_SLICE_ROWS = 50_000;

/** VACUUM of each hot table with more than `rows` rows written since its last vacuum; the milliseconds each took. */
export async function vacuumBusyTables(db: Database, rows: number = VACUUM_SLICE_ROWS): Promise<Record<string, number>> {
  const busy = await db.query<{ name: string }>(
    `SELECT relname AS name FROM pg_stat_user_tables
     WHERE schemaname = current_schema() AND relname = ANY($1::text[]) AND n_dead_tup + n_ins_since_vacuum > $2
     ORDER BY relname`,
    [HOT_TABLES, rows],
  );
  return eachTable(
    db,
    'VACUUM',
    busy.map((r) => r.name),
  );
}
