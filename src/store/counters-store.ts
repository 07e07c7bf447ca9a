import type { Queryable } from './database.ts';

export interface RateWindow {
  window_start: Date;
  count: number;
}

/**
 * Locks the account's request window for the transaction, starting a new one
 * (count 0) when the previous window has expired at `at`.
 */
export async function lockRateWindow(db: Queryable, accountId: string, at: Date, windowSeconds: number): Promise<RateWindow> {
  const rows = await db.query<RateWindow>(
    `INSERT INTO rate_windows (account_id, window_start, count) VALUES ($1, $2::timestamptz, 0)
     ON CONFLICT (account_id) DO UPDATE SET
       window_start = CASE WHEN rate_windows.window_start + make_interval(secs => $3::int) <= $2::timestamptz THEN $2::timestamptz ELSE rate_windows.window_start END,
       count = CASE WHEN rate_windows.window_start + make_interval(secs => $3::int) <= $2::timestamptz THEN 0 ELSE rate_windows.count END
     RETURNING window_start, count`,
    [accountId, at, windowSeconds],
  );
  return rows[0];
}

export async function incrementRateWindow(db: Queryable, accountId: string): Promise<void> {
  await db.query('UPDATE rate_windows SET count = count + 1 WHERE account_id = $1', [accountId]);
}

/** Reads the current window without locking or starting one. */
export async function readRateWindow(db: Queryable, accountId: string): Promise<RateWindow | null> {
  const rows = await db.query<RateWindow>('SELECT window_start, count FROM rate_windows WHERE account_id = $1', [accountId]);
  return rows[0] ?? null;
}

/** Locks (creating at 0) the counter row of one metric and period; returns its value. */
export async function lockCounter(db: Queryable, accountId: string, metric: string, periodStart: Date): Promise<number> {
  const rows = await db.query<{ used: number }>(
    `INSERT INTO usage_counters (account_id, metric, period_start, used) VALUES ($1, $2, $3, 0)
     ON CONFLICT (account_id, metric, period_start) DO UPDATE SET used = usage_counters.used
     RETURNING used`,
    [accountId, metric, periodStart],
  );
  return Number(rows[0].used);
}

/** Adds amount to a counter and returns the new value. */
export async function addToCounter(db: Queryable, accountId: string, metric: string, periodStart: Date, amount: number): Promise<number> {
  const rows = await db.query<{ used: number }>(
    `INSERT INTO usage_counters (account_id, metric, period_start, used) VALUES ($1, $2, $3, $4)
     ON CONFLICT (account_id, metric, period_start) DO UPDATE SET used = usage_counters.used + EXCLUDED.used
     RETURNING used`,
    [accountId, metric, periodStart, amount],
  );
  return Number(rows[0].used);
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
