import { AppError } from '../errors.ts';
import type { Queryable } from './database.ts';

export interface RateWindow {
  window_start: Date;
  count: number;
}

export interface ApiAdmission {
  window_started: Date;
  /** requests in the window before this one */
  window_used: number;
  /** requests of the day before this one */
  day_used: number;
  read_bytes_used: number;
  /** whether this request was counted in the window and the day (under both limits) */
  counted: boolean;
}

/** One request of a group admission. */
export interface AdmissionRequest {
  accountId: string;
  minuteLimit: number;
  dayLimit: number;
  /** read bytes served to the account since its last admission, added before judging */
  chargeBytes: number;
}

/**
 * Admits several requests in one statement that commits without waiting for
 * the WAL flush (migration 019): for each account, adds the read bytes to
 * charge, starts or locks the request window and the day's counter, and counts
 * its requests in order while both limits allow. Returns one admission per
 * request, in the order given.
 */
export async function admitApiRequests(
  db: Queryable,
  shared: { at: Date; windowSeconds: number; requestsMetric: string; readBytesMetric: string; dayStart: Date },
  requests: AdmissionRequest[],
): Promise<ApiAdmission[]> {
  const rows = await db.query<ApiAdmission & { request: number }>(
    `SELECT request, window_started, window_used, day_used, read_bytes_used, counted
     FROM admit_api_requests($1::uuid[], $2::bigint[], $3::bigint[], $4::bigint[], $5, $6, $7, $8, $9)`,
    [
      requests.map((r) => r.accountId),
      requests.map((r) => r.minuteLimit),
      requests.map((r) => r.dayLimit),
      requests.map((r) => r.chargeBytes),
      shared.at,
      shared.windowSeconds,
      shared.requestsMetric,
      shared.readBytesMetric,
      shared.dayStart,
    ],
  );
  const admissions = new Array<ApiAdmission>(requests.length);
  for (const { request, ...row } of rows) {
    admissions[request - 1] = { ...row, day_used: Number(row.day_used), read_bytes_used: Number(row.read_bytes_used) };
  }
  return admissions;
}

/** Writes request windows as they are (the embedded store's write-behind); windows of deleted accounts are skipped. */
export async function saveRateWindows(db: Queryable, windows: { accountId: string; windowStart: Date; count: number }[]): Promise<void> {
  if (windows.length === 0) return;
  await db.query(
    `INSERT INTO rate_windows (account_id, window_start, count)
     SELECT w.account_id, w.window_start, w.count
     FROM unnest($1::uuid[], $2::timestamptz[], $3::int[]) AS w (account_id, window_start, count)
     JOIN accounts a ON a.id = w.account_id
     ORDER BY w.account_id
     ON CONFLICT (account_id) DO UPDATE SET window_start = EXCLUDED.window_start, count = EXCLUDED.count`,
    [windows.map((w) => w.accountId), windows.map((w) => w.windowStart), windows.map((w) => w.count)],
  );
}

/**
 * Adds amounts to several counters in one statement; counters of deleted
 * accounts are skipped. Rows are locked in key order, so two batches never
 * wait for each other in a cycle.
 */
export async function addToCounters(
  db: Queryable,
  amounts: { accountId: string; metric: string; periodStart: Date; amount: number }[],
): Promise<void> {
  if (amounts.length === 0) return;
  await db.query(
    `INSERT INTO usage_counters AS c (account_id, metric, period_start, used)
     SELECT d.account_id, d.metric, d.period_start, sum(d.amount)
     FROM unnest($1::uuid[], $2::text[], $3::timestamptz[], $4::bigint[]) AS d (account_id, metric, period_start, amount)
     JOIN accounts a ON a.id = d.account_id
     GROUP BY d.account_id, d.metric, d.period_start
     ORDER BY d.account_id, d.metric, d.period_start
     ON CONFLICT (account_id, metric, period_start) DO UPDATE SET used = c.used + EXCLUDED.used`,
    [amounts.map((a) => a.accountId), amounts.map((a) => a.metric), amounts.map((a) => a.periodStart), amounts.map((a) => a.amount)],
  );
}

/** Reads the current window without locking or starting one. */
export async function readRateWindow(db: Queryable, accountId: string): Promise<RateWindow | null> {
  const rows = await db.query<RateWindow>('SELECT window_start, count FROM rate_windows WHERE account_id = $1', [accountId]);
  return rows[0] ?? null;
}

/** Deletes the counters of periods that began before `before`; how many. */
export async function deleteCountersBefore(db: Queryable, before: Date): Promise<number> {
  const rows = await db.query<{ n: number }>(
    'WITH gone AS (DELETE FROM usage_counters WHERE period_start < $1 RETURNING 1) SELECT count(*)::int AS n FROM gone',
    [before],
  );
  return rows[0]!.n;
}

/** Locks (creating at 0) the counter row of one metric and period; returns its value. */
export async function lockCounter(db: Queryable, accountId: string, metric: string, periodStart: Date): Promise<number> {
  const rows = await db.query<{ used: number }>(
    `INSERT INTO usage_counters (account_id, metric, period_start, used) VALUES ($1, $2, $3, 0)
     ON CONFLICT (account_id, metric, period_start) DO UPDATE SET used = usage_counters.used
     RETURNING used`,
    [accountId, metric, periodStart],
  );
  return Number(onlyRow(rows, 'lockCounter').used);
}

/** Adds amount to a counter and returns the new value. */
export async function addToCounter(db: Queryable, accountId: string, metric: string, periodStart: Date, amount: number): Promise<number> {
  const rows = await db.query<{ used: number }>(
    `INSERT INTO usage_counters (account_id, metric, period_start, used) VALUES ($1, $2, $3, $4)
     ON CONFLICT (account_id, metric, period_start) DO UPDATE SET used = usage_counters.used + EXCLUDED.used
     RETURNING used`,
    [accountId, metric, periodStart, amount],
  );
  return Number(onlyRow(rows, 'addToCounter').used);
}

/**
 * Adds one to a counter if it is below `limit`, in one statement; returns the
 * new value, or null when nothing was charged. ON CONFLICT DO UPDATE locks the
 * row and judges the latest committed value, so concurrent spends never pass
 * the limit; with no row yet, the insert only happens when the limit allows one.
 */
export async function incrementCounterBelow(
  db: Queryable,
  accountId: string,
  metric: string,
  periodStart: Date,
  limit: number,
): Promise<number | null> {
  const rows = await db.query<{ used: number }>(
    `INSERT INTO usage_counters AS c (account_id, metric, period_start, used)
     SELECT $1::uuid, $2::text, $3::timestamptz, 1 WHERE $4::bigint > 0
     ON CONFLICT (account_id, metric, period_start) DO UPDATE SET used = c.used + 1 WHERE c.used < $4::bigint
     RETURNING c.used`,
    [accountId, metric, periodStart, limit],
  );
  const [row] = rows;
  return row === undefined ? null : Number(row.used);
}

/**
 * Adds each amount to its counter only if the counter stays within its limit,
 * all in one statement; returns the keys (`account:metric`) that were charged
 * (an amount that does not fit is charged nothing). The limit is judged on
 * the latest committed value under the row's lock, as in incrementCounterBelow;
 * rows are locked in key order, so concurrent callers never deadlock. One row
 * per account, metric and period.
 */
export async function addToCountersWithin(
  db: Queryable,
  amounts: { accountId: string; metric: string; periodStart: Date; amount: number; limit: number }[],
): Promise<Set<string>> {
  if (amounts.length === 0) return new Set();
  const rows = await db.query<{ account_id: string; metric: string }>(
    `INSERT INTO usage_counters AS c (account_id, metric, period_start, used)
     SELECT d.account_id, d.metric, d.period_start, d.amount
     FROM unnest($1::uuid[], $2::text[], $3::timestamptz[], $4::bigint[], $5::bigint[]) AS d (account_id, metric, period_start, amount, lim)
     WHERE d.amount <= d.lim
     ORDER BY d.account_id, d.metric, d.period_start
     ON CONFLICT (account_id, metric, period_start) DO UPDATE SET used = c.used + EXCLUDED.used
     WHERE c.used + EXCLUDED.used <= (
       SELECT l.lim FROM unnest($1::uuid[], $2::text[], $5::bigint[]) AS l (account_id, metric, lim)
       WHERE l.account_id = c.account_id AND l.metric = c.metric LIMIT 1)
     RETURNING c.account_id, c.metric`,
    [
      amounts.map((a) => a.accountId),
      amounts.map((a) => a.metric),
      amounts.map((a) => a.periodStart),
      amounts.map((a) => a.amount),
      amounts.map((a) => a.limit),
    ],
  );
  return new Set(rows.map((r) => `${r.account_id}:${r.metric}`));
}

/** The row of a statement that returns one on every call (an upsert's RETURNING, a row-returning function). */
function onlyRow<R>(rows: R[], statement: string): R {
  const [row] = rows;
  if (row === undefined) throw new AppError('internal_error', `${statement} returned no row`);
  return row;
}

/** Current values of several counters for the given periods (missing rows are 0). */
export async function readCounters(
  db: Queryable,
  accountId: string,
  wanted: { metric: string; periodStart: Date }[],
): Promise<Map<string, number>> {
  const rows = await db.query<{ metric: string; period_start: Date; used: number }>(
    `SELECT metric, period_start, used FROM usage_counters
     WHERE account_id = $1 AND metric = ANY($2::text[]) AND period_start = ANY($3::timestamptz[])`,
    [accountId, wanted.map((w) => w.metric), wanted.map((w) => w.periodStart)],
  );
  const values = new Map<string, number>();
  for (const w of wanted) {
    const row = rows.find((r) => r.metric === w.metric && r.period_start.getTime() === w.periodStart.getTime());
    values.set(w.metric, row ? Number(row.used) : 0);
  }
  return values;
}
