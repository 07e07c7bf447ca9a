import type { Queryable } from './database.ts';

/**
 * Refreshes the planner's statistics of the tables a claim reads. PGlite runs
 * no autovacuum, so without this its planner never learns how many monitors
 * there are, and at 100,000 a claim sorted them all (seconds per claim)
 * instead of walking the due index (milliseconds).
 */
export async function refreshPlannerStatistics(db: Queryable): Promise<void> {
  await db.exec('ANALYZE monitors, accounts, check_leases, manual_checks');
}

// PostgreSQL's autovacuum defaults for ANALYZE (autovacuum_analyze_threshold
// and autovacuum_analyze_scale_factor).
const ANALYZE_THRESHOLD = 50;
const ANALYZE_SCALE_FACTOR = 0.1;

/**
 * What autovacuum's ANALYZE does, for PGlite, which has none: every table of
 * the schema changed by more than 50 rows + 10 % since its last ANALYZE is
 * analysed again. Without it a table that grows within the hour between
 * housekeeping vacuums keeps the statistics of when it was small: at 100,000
 * monitors the engine's reads of the baselines of a batch scanned the whole
 * table. Returns the tables analysed (the store's activity statistics reach
 * the view about a second after a change).
 */
export async function analyzeChangedTables(db: Queryable): Promise<string[]> {
  const rows = await db.query<{ name: string }>(
    `SELECT s.relname AS name FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
     WHERE s.schemaname = current_schema() AND s.n_mod_since_analyze > $1 + $2 * greatest(c.reltuples, 0)
     ORDER BY s.relname`,
    [ANALYZE_THRESHOLD, ANALYZE_SCALE_FACTOR],
  );
  for (const { name } of rows) await db.exec(`ANALYZE "${name.replaceAll('"', '""')}"`);
  return rows.map((r) => r.name);
}
