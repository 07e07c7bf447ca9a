import { AppError } from '../errors.ts';
import type { Queryable } from './database.ts';
import type { Target } from '../domain/targets.ts';
import type { Step } from '../domain/steps.ts';
import type { CheckIssue } from '../domain/issues.ts';
import type { BaselineRow } from './baselines-store.ts';
import type { MonitorSchedule } from '../domain/monitor-schedule.ts';

export interface MonitorRow {
  id: string;
  seq: number;
  account_id: string;
  url: string;
  load_mode: 'html' | 'browser';
  /** the operator's outbound proxy its checks go through (migration 032); null: directly */
  proxy: string | null;
  status: 'active' | 'paused';
  name: string | null;
  labels: string[];
  interval_minutes: number;
  /** days/hours or cron (migration 028); null: every interval around the clock */
  schedule: MonitorSchedule | null;
  targets: Target[];
  /** browser mode: steps run before the page is read */
  steps: Step[];
  email_enabled: boolean;
  webhook_enabled: boolean;
  /** each, daily or weekly; null: the account's email_mode */
  email_mode: 'each' | 'daily' | 'weekly' | null;
  /** the account's channels its alerts go to (notifications.channels) */
  channel_ids: string[];
  /** consecutive failed checks after which the monitor is failing (monitor.failing is sent) */
  failing_after: number;
  /** since when its checks have been failing, or null */
  failing_since: Date | null;
  config_version: number;
  created_at: Date;
  updated_at: Date;
  last_checked_at: Date | null;
  next_check_at: Date | null;
  last_change_at: Date | null;
  last_issues: CheckIssue[];
}

export type NewMonitor = Omit<
  MonitorRow,
  'seq' | 'config_version' | 'last_checked_at' | 'last_change_at' | 'last_issues' | 'failing_since'
>;

export async function countMonitors(db: Queryable, accountId: string): Promise<number> {
  const [row] = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM monitors WHERE account_id = $1', [accountId]);
  if (!row) throw new AppError('internal_error', 'count(*) returned no row');
  return row.n;
}

// A monitor as read: its own row and its check state (migration 018), one row per monitor.
const MONITOR_ROWS = `SELECT m.*, s.next_check_at, s.last_checked_at, s.last_change_at, s.last_issues, s.failing_since
  FROM monitors m JOIN check_state s ON s.monitor_id = m.id`;

export async function insertMonitor(db: Queryable, m: NewMonitor): Promise<void> {
  await db.query(
    `INSERT INTO monitors (id, account_id, url, load_mode, status, name, labels, interval_minutes, targets,
       email_enabled, webhook_enabled, created_at, updated_at, failing_after, email_mode, channel_ids, proxy, schedule, steps)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16::uuid[], $17, $18::jsonb, $19)`,
    [
      m.id,
      m.account_id,
      m.url,
      m.load_mode,
      m.status,
      m.name,
      JSON.stringify(m.labels),
      m.interval_minutes,
      JSON.stringify(m.targets),
      m.email_enabled,
      m.webhook_enabled,
      m.created_at,
      m.updated_at,
      m.failing_after,
      m.email_mode,
      m.channel_ids,
      m.proxy,
      jsonOrNull(m.schedule),
      JSON.stringify(m.steps),
    ],
  );
  await insertCheckState(db, m.id, m.status === 'active', m.next_check_at);
}

/** The check state every monitor has from its creation. */
export async function insertCheckState(db: Queryable, monitorId: string, active: boolean, nextCheckAt: Date | null): Promise<void> {
  await db.query('INSERT INTO check_state (monitor_id, active, next_check_at) VALUES ($1, $2, $3::timestamptz)', [
    monitorId,
    active,
    nextCheckAt,
  ]);
}

export async function findMonitor(db: Queryable, accountId: string, id: string): Promise<MonitorRow | null> {
  const rows = await db.query<MonitorRow>(`${MONITOR_ROWS} WHERE m.id = $1 AND m.account_id = $2`, [id, accountId]);
  return rows[0] ?? null;
}

/** What a monitor's current observations are read from: the parts of its baselines they show. */
export type CurrentBaseline = Pick<BaselineRow, 'target_id' | 'fingerprint' | 'value' | 'display' | 'updated_at'>;

/** A monitor as an account asks for it. */
export interface MonitorKey {
  accountId: string;
  id: string;
}

// The timestamps a grouped read carries as epoch milliseconds (JSON has no timestamp type).
const MONITOR_TIMES = ['created_at', 'updated_at', 'last_checked_at', 'next_check_at', 'last_change_at', 'failing_since'] as const;
const epochMs = (column: string) => `extract(epoch FROM ${column}) * 1000`;

/**
 * Monitors with their baselines in one statement, one entry per key in the
 * keys' order (null: no such monitor of that account). GET /monitors/{id} is
 * the API's hot read: the reads of requests that arrive together go in one
 * statement (services/monitor-reads.ts).
 */
export async function findMonitorsWithBaselines(
  db: Queryable,
  keys: MonitorKey[],
): Promise<({ monitor: MonitorRow; baselines: CurrentBaseline[] } | null)[]> {
  // The keys come as a JSON document, not arrays: the planner cannot see how
  // many there are, so the statement keeps one generic plan instead of being
  // planned again for each group (most of its cost). LIMIT 1 keeps the
  // lateral sub-select a nested loop of index lookups per key. The answer is
  // one JSON text, which the embedded store hands on as one value instead of
  // parsing each column of each row (half the statement's cost on PGlite).
  const [row] = await db.query<{ found: string }>(
    `SELECT coalesce(json_agg(r), '[]')::text AS found FROM (
       SELECT k.key_position, m.id, m.seq, m.account_id, m.url, m.load_mode, m.proxy, m.status, m.name, m.labels, m.interval_minutes, m.schedule,
         m.targets, m.steps, m.email_enabled, m.webhook_enabled, m.email_mode, m.channel_ids, m.failing_after, m.config_version,
         ${epochMs('m.created_at')} AS created_at, ${epochMs('m.updated_at')} AS updated_at,
         ${epochMs('s.last_checked_at')} AS last_checked_at, ${epochMs('s.next_check_at')} AS next_check_at,
         ${epochMs('s.last_change_at')} AS last_change_at, ${epochMs('s.failing_since')} AS failing_since, s.last_issues,
         (SELECT coalesce(json_agg(b), '[]') FROM (
            SELECT target_id, fingerprint, value, display, ${epochMs('updated_at')} AS updated_at
            FROM baselines WHERE monitor_id = k.id) b) AS baselines
       FROM json_to_recordset($1::json) AS k(key_position int, id uuid, account_id uuid)
       CROSS JOIN LATERAL (SELECT * FROM monitors m WHERE m.id = k.id AND m.account_id = k.account_id LIMIT 1) m
       JOIN check_state s ON s.monitor_id = k.id) r`,
    [JSON.stringify(keys.map((k, i) => ({ key_position: i + 1, id: k.id, account_id: k.accountId })))],
  );
  type Stored = Record<string, unknown> & { key_position: number; baselines: (CurrentBaseline & { updated_at: number })[] };
  const found: ({ monitor: MonitorRow; baselines: CurrentBaseline[] } | null)[] = keys.map(() => null);
  for (const { key_position: position, baselines, ...monitor } of JSON.parse(row!.found) as Stored[]) {
    for (const column of MONITOR_TIMES) if (monitor[column] !== null) monitor[column] = new Date(monitor[column] as number);
    found[position - 1] = {
      monitor: monitor as unknown as MonitorRow,
      baselines: baselines.map((b) => ({ ...b, updated_at: new Date(b.updated_at) })),
    };
  }
  return found;
}

/** Locks the monitor row (not its check state) for the rest of the transaction. */
export async function lockMonitor(db: Queryable, accountId: string, id: string): Promise<MonitorRow | null> {
  const rows = await db.query<MonitorRow>(`${MONITOR_ROWS} WHERE m.id = $1 AND m.account_id = $2 FOR UPDATE OF m`, [id, accountId]);
  return rows[0] ?? null;
}

export async function monitorIdForUrl(db: Queryable, accountId: string, url: string): Promise<string | null> {
  const rows = await db.query<{ id: string }>('SELECT id FROM monitors WHERE account_id = $1 AND url = $2', [accountId, url]);
  return rows[0]?.id ?? null;
}

/** The account's active monitors, oldest first, with what decides whether its plan lets them be checked. */
export async function activeMonitorsOf(
  db: Queryable,
  accountId: string,
): Promise<{ id: string; url: string; name: string | null; status: string; load_mode: 'html' | 'browser' }[]> {
  return db.query(
    `SELECT id, url, name, status, load_mode FROM monitors WHERE account_id = $1 AND status = 'active' ORDER BY created_at, id`,
    [accountId],
  );
}

export type MonitorFilters = {
  status: string | null;
  /** carries exactly this label */
  label: string | null;
  /** case-insensitive substring of the name or the URL */
  search: string | null;
  /** true: only failing monitors; false: only healthy ones */
  failing?: boolean | null;
};

/** One page, newest first, strictly after the keyset position when one is given. */
export async function listMonitors(
  db: Queryable,
  accountId: string,
  query: MonitorFilters & { limit: number; after: { created_at: Date; seq: number } | null },
): Promise<MonitorRow[]> {
  return db.query<MonitorRow>(
    `${MONITOR_ROWS}
     WHERE m.account_id = $1 AND ($2::text IS NULL OR m.status = $2::text)
       AND ($3::timestamptz IS NULL OR (m.created_at, m.seq) < ($3::timestamptz, $4::bigint))
       AND ($6::text IS NULL OR m.labels ? $6::text)
       AND ($7::text IS NULL OR strpos(lower(coalesce(m.name, '') || ' ' || m.url), lower($7::text)) > 0)
       AND ($8::boolean IS NULL OR (s.failing_since IS NOT NULL) = $8::boolean)
     ORDER BY m.created_at DESC, m.seq DESC
     LIMIT $5`,
    [
      accountId,
      query.status,
      query.after?.created_at ?? null,
      query.after?.seq ?? null,
      query.limit,
      query.label,
      query.search,
      query.failing ?? null,
    ],
  );
}

export type MonitorChanges = Partial<
  Pick<
    MonitorRow,
    | 'name'
    | 'labels'
    | 'status'
    | 'email_enabled'
    | 'webhook_enabled'
    | 'email_mode'
    | 'channel_ids'
    | 'failing_after'
    | 'targets'
    | 'steps'
    | 'interval_minutes'
    | 'schedule'
    | 'load_mode'
    | 'proxy'
    | 'config_version'
    | 'next_check_at'
  >
>;

const JSON_COLUMNS = new Set(['labels', 'targets', 'schedule', 'steps']);

/** A JSON column's parameter; null stays SQL NULL rather than the JSON value null. */
function jsonOrNull(value: unknown): string | null {
  return value === null ? null : JSON.stringify(value);
}

export async function updateMonitor(db: Queryable, id: string, changes: MonitorChanges, at: Date): Promise<MonitorRow> {
  const { next_check_at: nextCheckAt, ...own } = changes;
  const params: unknown[] = [id, at];
  const sets = ['updated_at = $2'];
  for (const [column, value] of Object.entries(own)) {
    if (value === undefined) continue;
    params.push(JSON_COLUMNS.has(column) ? jsonOrNull(value) : value);
    sets.push(`${column} = $${params.length}`);
  }
  await db.query(`UPDATE monitors SET ${sets.join(', ')} WHERE id = $1`, params);
  // check_state.active follows the status by a trigger (migration 018).
  if (nextCheckAt !== undefined) {
    await db.query('UPDATE check_state SET next_check_at = $2::timestamptz WHERE monitor_id = $1', [id, nextCheckAt]);
  }
  const [row] = await db.query<MonitorRow>(`${MONITOR_ROWS} WHERE m.id = $1`, [id]);
  // The caller holds the monitor's row lock, so the row it just updated is there.
  if (!row) throw new AppError('internal_error', `monitor ${id} vanished during its update`);
  return row;
}

/** Deletes the monitor; its history goes with it through ON DELETE CASCADE. */
export async function deleteMonitor(db: Queryable, accountId: string, id: string): Promise<boolean> {
  const rows = await db.query('DELETE FROM monitors WHERE id = $1 AND account_id = $2 RETURNING id', [id, accountId]);
  return rows.length > 0;
}
