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
import { digestEvent, digestSkipReason, readDigest, type Digest } from '../store/digests-store.ts';
import { CHANNEL_FAILING_EVENT, MONITORS_STOPPED_EVENT } from '../store/outbox-store.ts';
import { channelOfDelivery } from '../store/channels-store.ts';

const CHANGE_EVENT = 'change.detected';
import { chargeNotification } from './notification-allowance.ts';

// The step before a send, in one transaction with the row locked: decide
// whether the notification can go out at all and charge the allowance. A
// notification that cannot be sent ends here as skipped, with the reason, and
// is never retried: nothing about it would change by waiting.

export type SkipReason =
  | 'notifications_disabled'
  | 'smtp_not_configured'
  | 'no_webhook_url'
  | 'allowance_exhausted'
  /** a chat channel the service refused for good (state failing) */
  | 'channel_failing'
  /** a change email of a monitor in digest mode: the period's digest takes it (engine/digests.ts) */
  | 'daily_digest'
  | 'weekly_digest';

export type Destination =
  | { channel: 'email'; to: string }
  | { channel: 'webhook'; url: string; secret: string }
  /** url: the channel's Apprise-style URL */
  | { channel: 'chat'; channelId: string; url: string };

export type Prepared =
  | { kind: 'send'; row: LeasedDelivery; subject: DeliverySubject; destination: Destination }
  /** a notice about the account, by email to its owner */
  | { kind: 'notice'; row: LeasedDelivery; notice: AccountNotice; to: string }
  /** a period's digest of change emails, by email to the owner */
  | { kind: 'digest'; row: LeasedDelivery; digest: Digest; to: string }
  | { kind: 'skipped'; reason: SkipReason }
  /** the lease ran out and another dispatcher holds the row now */
  | { kind: 'lease_lost' };

/** Where the notification goes, or why it cannot go anywhere. */
function destinationOf(channel: 'email' | 'webhook', subject: DeliverySubject, smtpConfigured: boolean): Destination | SkipReason {
  const { monitor, account } = subject;
  // The flag was on when the change was queued; switching it off since also stops pending retries.
  if (!(channel === 'email' ? monitor.email_enabled : monitor.webhook_enabled)) return 'notifications_disabled';
  // The mode as it is at sending time: a monitor switched to a digest since the change waits for the digest.
  if (channel === 'email' && subject.event === CHANGE_EVENT && (monitor.email_mode === 'daily' || monitor.email_mode === 'weekly')) {
    return digestSkipReason(monitor.email_mode);
  }
  if (channel === 'email') return smtpConfigured ? { channel, to: account.email } : 'smtp_not_configured';
  if (account.webhook_url === null || account.webhook_secret === null) return 'no_webhook_url';
  return { channel, url: account.webhook_url, secret: account.webhook_secret };
}

// The monitor chose the channel when the alert was queued; un-choosing it since also stops pending retries.
async function chatDestination(tx: Queryable, outboxId: string): Promise<Destination | SkipReason> {
  const channel = await channelOfDelivery(tx, outboxId);
  // The row cascades with its channel, so a locked row always has one.
  if (channel === null || !channel.chosen) return 'notifications_disabled';
  if (channel.state === 'failing') return 'channel_failing';
  return { channel: 'chat', channelId: channel.id, url: channel.url };
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
  if (row.event === MONITORS_STOPPED_EVENT || row.event === CHANNEL_FAILING_EVENT)
    return prepareNotice(tx, row, settings.smtpConfigured, at);
  if (row.event === digestEvent('daily') || row.event === digestEvent('weekly')) return prepareDigest(tx, row, settings, at);
  const subject = await readDeliverySubject(tx, row.id);
  // The row cascades with its change, monitor and account, so a locked row always has them.
  if (subject === null) return { kind: 'lease_lost' };

  const destination =
    row.channel === 'chat' ? await chatDestination(tx, row.id) : destinationOf(row.channel, subject, settings.smtpConfigured);
  if (typeof destination === 'string') return skip(tx, row.id, destination, at);
  if (!(await charged(tx, row, subject.account, settings.plans, at))) return skip(tx, row.id, 'allowance_exhausted', at);
  return { kind: 'send', row, subject, destination };
}

/** Charges the notification to the account's allowance once, before its first send; false when the allowance is spent. */
async function charged(
  tx: Queryable,
  row: LeasedDelivery,
  account: { id: string; plan: string },
  plans: Plans,
  at: Date,
): Promise<boolean> {
  if (row.charged_period !== null) return true;
  const period = await chargeNotification(tx, account.id, plans[account.plan as PlanName], row.channel, at);
  if (period === null) return false;
  await markCharged(tx, row.id, period);
  return true;
}

// A digest is one email, charged as one.
async function prepareDigest(
  tx: Queryable,
  row: LeasedDelivery,
  settings: { plans: Plans; smtpConfigured: boolean },
  at: Date,
): Promise<Prepared> {
  const digest = await readDigest(tx, row.id);
  // The row cascades with its account, so a locked row always has one.
  if (digest === null) return { kind: 'lease_lost' };
  if (!settings.smtpConfigured) return skip(tx, row.id, 'smtp_not_configured', at);
  if (!(await charged(tx, row, digest.account, settings.plans, at))) return skip(tx, row.id, 'allowance_exhausted', at);
  return { kind: 'digest', row, digest, to: digest.account.email };
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
