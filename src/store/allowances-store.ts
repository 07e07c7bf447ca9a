import type { Metric } from '../domain/usage-metrics.ts';
import type { Queryable } from './database.ts';
import { incrementCounterBelow } from './counters-store.ts';
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
