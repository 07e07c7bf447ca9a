import type { Metric } from '../domain/usage-metrics.ts';
import type { Queryable } from './database.ts';
import { addToCountersWithin, incrementCounterBelow } from './counters-store.ts';
import { periodStart } from '../domain/periods.ts';

/**
 * Spends one unit of a periodic allowance in one statement that locks the
 * counter row, so concurrent processes can never exceed it. Returns the
 * period charged, or null when the allowance is used up (nothing is charged then).
 */
export async function spendAllowance(tx: Queryable, accountId: string, metric: Metric, limit: number, at: Date): Promise<Date | null> {
  const period = periodStart(metric, at);
  const used = await incrementCounterBelow(tx, accountId, metric.name, period, limit);
  return used === null ? null : period;
}

export interface AllowanceWant {
  accountId: string;
  metric: Metric;
  limit: number;
  /** units wanted */
  amount: number;
}

/**
 * Spends several allowances at once (one per account and metric): each gets
 * all it wants in one statement when that fits; one that does not fit is
 * spent unit by unit up to its limit. Returns, per `account:metric`, the
 * period charged and how many units were granted (0 to amount).
 */
export async function spendAllowances(
  tx: Queryable,
  wants: AllowanceWant[],
  at: Date,
): Promise<Map<string, { period: Date; granted: number }>> {
  // In key order, as the statement locks them: the unit-by-unit spends below then lock in the same order.
  const rows = wants
    .map((w) => ({ ...w, key: `${w.accountId}:${w.metric.name}`, period: periodStart(w.metric, at) }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const whole = await addToCountersWithin(
    tx,
    rows.map((r) => ({ accountId: r.accountId, metric: r.metric.name, periodStart: r.period, amount: r.amount, limit: r.limit })),
  );
  const granted = new Map<string, { period: Date; granted: number }>();
  for (const row of rows) {
    let units = whole.has(row.key) ? row.amount : 0;
    // Near the limit: as many single units as are left.
    if (units === 0)
      while (units < row.amount && (await incrementCounterBelow(tx, row.accountId, row.metric.name, row.period, row.limit)) !== null)
        units++;
    granted.set(row.key, { period: row.period, granted: units });
  }
  return granted;
}
