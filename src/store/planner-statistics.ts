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
