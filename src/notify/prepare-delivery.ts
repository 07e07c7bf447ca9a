import type { PlanName, Plans } from '../domain/plans.ts';
import type { Queryable } from '../store/database.ts';
import {
  lockLeasedDelivery,
  markCharged,
  markSkipped,
  readAccountNotice,
  readDeliverySubject,
  type AccountNotice,
  type ClaimedDelivery,
  type DeliverySubject,
  type LeasedDelivery,
} from '../store/deliveries-store.ts';
import { MONITORS_STOPPED_EVENT } from '../store/outbox-store.ts';
import { chargeNotification } from './notification-allowance.ts';

// The step before a send, in one transaction with the row locked: decide
// whether the notification can go out at all and charge the allowance. A
// notification that cannot be sent ends here as skipped, with the reason, and
// is never retried: nothing about it would change by waiting.

export type SkipReason = 'notifications_disabled' | 'smtp_not_configured' | 'no_webhook_url' | 'allowance_exhausted';

export type Destination = { channel: 'email'; to: string } | { channel: 'webhook'; url: string; secret: string };

export type Prepared =
  | { kind: 'send'; row: LeasedDelivery; subject: DeliverySubject; destination: Destination }
  /** a notice about the account, by email to its owner */
  | { kind: 'notice'; row: LeasedDelivery; notice: AccountNotice; to: string }
  | { kind: 'skipped'; reason: SkipReason }
  /** the lease ran out and another dispatcher holds the row now */
  | { kind: 'lease_lost' };

/** Where the notification goes, or why it cannot go anywhere. */
function destinationOf(channel: LeasedDelivery['channel'], subject: DeliverySubject, smtpConfigured: boolean): Destination | SkipReason {
  const { monitor, account } = subject;
  // The flag was on when the change was queued; switching it off since also stops pending retries.
  if (!(channel === 'email' ? monitor.email_enabled : monitor.webhook_enabled)) return 'notifications_disabled';
  if (channel === 'email') return smtpConfigured ? { channel, to: account.email } : 'smtp_not_configured';
  if (account.webhook_url === null || account.webhook_secret === null) return 'no_webhook_url';
  return { channel, url: account.webhook_url, secret: account.webhook_secret };
}

async function skip(tx: Queryable, id: string, reason: SkipReason, at: Date): Promise<Prepared> {
  await markSkipped(tx, id, reason, at);
  return { kind: 'skipped', reason };
}

export async function prepareDelivery(
  tx: Queryable,
  claim: ClaimedDelivery,
  settings: { plans: Plans; smtpConfigured: boolean },
  at: Date,
): Promise<Prepared> {
  const row = await lockLeasedDelivery(tx, claim);
  if (row === null) return { kind: 'lease_lost' };
  if (row.event === MONITORS_STOPPED_EVENT) return prepareNotice(tx, row, settings.smtpConfigured, at);
  const subject = await readDeliverySubject(tx, row.id);
  // The row cascades with its change, monitor and account, so a locked row always has them.
  if (subject === null) return { kind: 'lease_lost' };

  const destination = destinationOf(row.channel, subject, settings.smtpConfigured);
  if (typeof destination === 'string') return skip(tx, row.id, destination, at);
  if (row.charged_period === null) {
    const plan = settings.plans[subject.account.plan as PlanName];
    const period = await chargeNotification(tx, subject.account.id, plan, row.channel, at);
    if (period === null) return skip(tx, row.id, 'allowance_exhausted', at);
    await markCharged(tx, row.id, period);
  }
  return { kind: 'send', row, subject, destination };
}

// The service's own word to the owner about the account: not an alert the
// owner asked for, so no monitor's flag turns it off and no allowance pays for it.
async function prepareNotice(tx: Queryable, row: LeasedDelivery, smtpConfigured: boolean, at: Date): Promise<Prepared> {
  const notice = await readAccountNotice(tx, row.id);
  // The row cascades with its account, so a locked row always has one.
  if (notice === null) return { kind: 'lease_lost' };
  if (!smtpConfigured) return skip(tx, row.id, 'smtp_not_configured', at);
  return { kind: 'notice', row, notice, to: notice.account.email };
}
