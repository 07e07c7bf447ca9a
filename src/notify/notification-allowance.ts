import { METRICS } from '../domain/usage-metrics.ts';
import type { Plan } from '../domain/plans.ts';
import type { Queryable } from '../store/database.ts';
import type { NotificationChannel } from '../store/outbox-store.ts';
import { spendAllowance } from '../store/allowances-store.ts';

// Monthly notification allowances (email and webhook apart, from the plan;
// chat channels' messages are HTTP posts like webhooks and count as webhooks).
// A notification is charged once, right before it is first sent, with the
// counter row locked, so concurrent dispatchers never exceed the allowance;
// retries are not charged again. GET /usage reads the same counters.

const METRIC_BY_CHANNEL = {
  email: METRICS.notificationsEmail,
  webhook: METRICS.notificationsWebhook,
  chat: METRICS.notificationsWebhook,
} as const;

/** Charges one notification and returns the period charged, or null when the month's allowance is used up. */
export async function chargeNotification(
  tx: Queryable,
  accountId: string,
  plan: Plan,
  channel: NotificationChannel,
  at: Date,
): Promise<Date | null> {
  return spendAllowance(
    tx,
    accountId,
    METRIC_BY_CHANNEL[channel],
    plan.notifications_per_month[channel === 'chat' ? 'webhook' : channel],
    at,
  );
}
