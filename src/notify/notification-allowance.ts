import { METRICS } from '../domain/metrics.ts';
import type { Plan } from '../domain/plans.ts';
import type { Queryable } from '../store/database.ts';
import { addToCounter, lockCounter } from '../store/counters-store.ts';
import type { NotificationChannel } from '../store/outbox-store.ts';
import { periodStart } from '../services/periods.ts';

// Monthly notification allowances (email and webhook apart, from the plan).
// A notification is charged once, right before it is first sent, with the
// counter row locked, so concurrent dispatchers never exceed the allowance;
// retries are not charged again. GET /usage reads the same counters.

const METRIC_BY_CHANNEL = { email: METRICS.notificationsEmail, webhook: METRICS.notificationsWebhook } as const;

/** Charges one notification and returns the period charged, or null when the month's allowance is used up. */
export async function chargeNotification(tx: Queryable, accountId: string, plan: Plan, channel: NotificationChannel, at: Date): Promise<Date | null> {
  const metric = METRIC_BY_CHANNEL[channel];
  const period = periodStart(metric, at);
  const used = await lockCounter(tx, accountId, metric.name, period);
  if (used >= plan.notifications_per_month[channel]) return null;
  await addToCounter(tx, accountId, metric.name, period, 1);
  return period;
}
