import type { Database } from '../../src/store/database.ts';

/**
 * Makes the store's activity statistics (pg_stat_user_tables) show the changes made so far. A
 * session hands its counts over at most once a second; pg_stat_force_next_flush() makes it hand
 * them over at the end of this statement instead, so nothing waits for the second to pass. The
 * embedded store has one session, so that is every change; on PostgreSQL it covers only the pooled
 * connection that runs it.
 */
export async function flushActivityStatistics(db: Pick<Database, 'query'>): Promise<void> {
  await db.query('SELECT pg_stat_force_next_flush()');
}
