import { randomUUID } from 'node:crypto';
import type { Target } from '../../src/domain/targets.ts';
import type { Queryable } from '../../src/store/database.ts';
import { insertAccount } from '../../src/store/accounts-store.ts';

// Rows as the services write them, inserted in bulk: creating 100,000
// monitors through POST /monitors (preview first) would take longer than the
// benchmark itself.

export async function createAccount(db: Queryable): Promise<string> {
  const id = randomUUID();
  const now = new Date();
  await insertAccount(db, { id, email: `bench-${id}@example.com`, plan: 'pro', created_at: now, updated_at: now });
  return id;
}

export interface MonitorSeed {
  /** default: a random UUID */
  id?: string;
  url: string;
  nextCheckAt: Date;
}

/** Inserts active monitors in batches; returns their ids in input order. */
export async function insertMonitors(
  db: Queryable,
  options: { accountId: string; loadMode: 'html' | 'browser'; intervalMinutes: number; targets: Target[]; monitors: MonitorSeed[] },
): Promise<string[]> {
  const ids: string[] = [];
  const targets = JSON.stringify(options.targets);
  const BATCH = 1000;
  for (let start = 0; start < options.monitors.length; start += BATCH) {
    const batch = options.monitors.slice(start, start + BATCH);
    const batchIds = batch.map((m) => m.id ?? randomUUID());
    ids.push(...batchIds);
    await db.query(
      `INSERT INTO monitors (id, account_id, url, load_mode, status, interval_minutes, targets, email_enabled, webhook_enabled,
         created_at, updated_at)
       SELECT m.id, $1, m.url, $2, 'active', $3, $4::jsonb, false, false, now(), now()
       FROM unnest($5::uuid[], $6::text[]) AS m(id, url)`,
      [options.accountId, options.loadMode, options.intervalMinutes, targets, batchIds, batch.map((m) => m.url)],
    );
    await db.query(
      'INSERT INTO check_state (monitor_id, active, next_check_at) SELECT id, true, due FROM unnest($1::uuid[], $2::timestamptz[]) AS s(id, due)',
      [batchIds, batch.map((m) => m.nextCheckAt)],
    );
  }
  return ids;
}

/** Monitors checked at least once since `since`. */
export async function countCheckedSince(db: Queryable, since: Date): Promise<number> {
  const rows = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM check_state WHERE last_checked_at >= $1', [since]);
  return rows[0]!.n;
}
