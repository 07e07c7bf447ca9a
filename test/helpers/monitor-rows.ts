import { randomUUID } from 'node:crypto';
import type { Target } from '../../src/domain/targets.ts';
import type { Queryable } from '../../src/store/database.ts';
import { insertCheckState } from '../../src/store/monitors-store.ts';

// Monitor rows as the monitors service writes them, for engine tests that do
// not need the whole POST /monitors flow.

export interface MonitorRowInput {
  /** default a random UUID */
  id?: string;
  accountId: string;
  url: string;
  targets: Target[];
  loadMode?: 'html' | 'browser';
  intervalMinutes?: number;
  nextCheckAt: Date;
  emailEnabled?: boolean;
  webhookEnabled?: boolean;
}

export async function insertMonitorRow(db: Queryable, input: MonitorRowInput): Promise<string> {
  const id = input.id ?? randomUUID();
  await db.query(
    `INSERT INTO monitors (id, account_id, url, load_mode, status, interval_minutes, targets, email_enabled, webhook_enabled,
       created_at, updated_at)
     VALUES ($1, $2, $3, $4, 'active', $5, $6::jsonb, $7, $8, $9, $9)`,
    [
      id,
      input.accountId,
      input.url,
      input.loadMode ?? 'html',
      input.intervalMinutes ?? 60,
      JSON.stringify(input.targets),
      input.emailEnabled ?? false,
      input.webhookEnabled ?? false,
      input.nextCheckAt,
    ],
  );
  await insertCheckState(db, id, true, input.nextCheckAt);
  return id;
}

/** When the monitor is next due. */
export async function nextCheckAt(db: Queryable, monitorId: string): Promise<Date> {
  const rows = await db.query<{ next_check_at: Date }>('SELECT next_check_at FROM check_state WHERE monitor_id = $1', [monitorId]);
  return rows[0]!.next_check_at;
}

/** Edits a monitor row as PATCH would (status, targets with a new config version). */
export async function updateMonitorRow(
  db: Queryable,
  monitorId: string,
  changes: { status?: 'active' | 'paused'; targets?: Target[] },
): Promise<void> {
  if (changes.status) await db.query('UPDATE monitors SET status = $2 WHERE id = $1', [monitorId, changes.status]);
  if (changes.targets) {
    await db.query('UPDATE monitors SET targets = $2::jsonb, config_version = config_version + 1 WHERE id = $1', [
      monitorId,
      JSON.stringify(changes.targets),
    ]);
  }
}
