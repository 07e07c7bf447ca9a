import { METRICS } from '../../domain/usage-metrics.ts';
import type { Plan } from '../../domain/plans.ts';
import type { LoadMode } from '../../domain/load-mode.ts';
import type { Queryable } from '../database.ts';
import { addToCounter } from '../counters-store.ts';
import { spendAllowances, type AllowanceWant } from '../allowances-store.ts';

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

/**
 * Reserves one check for each claim, one statement for all of them when the
 * allowances have room: the reservations (null where the month's allowance is
 * used up), in the claims' order, so the first claims of an account win.
 */
export async function reserveChecks(
  tx: Queryable,
  claims: { accountId: string; plan: Plan; mode: LoadMode }[],
  at: Date,
): Promise<(Reservation | null)[]> {
  const wants = new Map<string, AllowanceWant>();
  const keys = claims.map(({ accountId, plan, mode }) => {
    const metric = METRIC_BY_MODE[mode];
    const key = `${accountId}:${metric.name}`;
    const want = wants.get(key) ?? { accountId, metric, limit: plan.checks_per_month[mode], amount: 0 };
    want.amount++;
    wants.set(key, want);
    return key;
  });
  const spent = await spendAllowances(tx, [...wants.values()], at);
  return keys.map((key) => {
    const grant = spent.get(key)!;
    if (grant.granted === 0) return null;
    grant.granted--;
    return { metric: wants.get(key)!.metric.name, period: grant.period };
  });
}

export async function refundCheck(tx: Queryable, accountId: string, reservation: Reservation): Promise<void> {
  await addToCounter(tx, accountId, reservation.metric, reservation.period, -1);
}
