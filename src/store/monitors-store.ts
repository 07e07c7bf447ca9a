import type { Queryable } from './database.ts';

export async function countMonitors(db: Queryable, accountId: string): Promise<number> {
  const rows = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM monitors WHERE account_id = $1', [accountId]);
  return rows[0].n;
}
