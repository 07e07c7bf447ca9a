import { METRICS } from '../domain/usage-metrics.ts';
import type { Plan } from '../domain/plans.ts';
import type { LoadMode } from '../domain/load-mode.ts';
import type { Queryable } from '../store/database.ts';
import { addToCounter } from '../store/counters-store.ts';
import { spendAllowance } from '../store/allowances-store.ts';

// Monthly check allowances (html and browser apart). A check reserves one
// when it is claimed, so concurrent workers can never exceed the allowance;
// a check that never reached the site (a capacity deferral, a lease given up)
// gets it back. GET /usage reads the same counters.

export interface Reservation {
  metric: string;
  period: Date;
}

/** The reservation a lease row holds, if any (both columns are set together). */
export function storedReservation(metric: string | null, period: Date | null): Reservation | null {
  return metric !== null && period !== null ? { metric, period } : null;
}

const METRIC_BY_MODE = { html: METRICS.checksHtml, browser: METRICS.checksBrowser } as const;

/** Reserves one check of the load mode, or returns null when the month's allowance is used up. */
export async function reserveCheck(tx: Queryable, accountId: string, plan: Plan, mode: LoadMode, at: Date): Promise<Reservation | null> {
  const metric = METRIC_BY_MODE[mode];
  const period = await spendAllowance(tx, accountId, metric, plan.checks_per_month[mode], at);
  return period ? { metric: metric.name, period } : null;
}

export async function refundCheck(tx: Queryable, accountId: string, reservation: Reservation): Promise<void> {
  await addToCounter(tx, accountId, reservation.metric, reservation.period, -1);
}
