import { randomUUID } from 'node:crypto';
import type { Queryable } from './database.ts';

/** chat: one of the account's notification channels (Slack, Discord, …), named by the row's channel_id */
export type NotificationChannel = 'email' | 'webhook' | 'chat';

/**
 * Queues a change for delivery on one channel; written in the change's own
 * transaction. `data` carries the check it came from (check_id) and, for an
 * email that groups a check's changes, all of their ids (change_ids).
 */
export async function enqueueNotification(
  db: Queryable,
  entry: {
    changeId: string;
    accountId: string;
    channel: NotificationChannel;
    /** the chat channel's id */
    channelId?: string;
    at: Date;
    data?: { check_id: string; change_ids?: string[] };
  },
): Promise<void> {
  await db.query(
    `INSERT INTO notification_outbox (id, change_id, account_id, channel, channel_id, created_at, next_attempt_at, event_data)
     VALUES ($1, $2, $3, $4, $5, $6::timestamptz, $6::timestamptz, $7::jsonb)
     ON CONFLICT (change_id, channel, coalesce(channel_id, '00000000-0000-0000-0000-000000000000'::uuid)) DO NOTHING`,
    [
      randomUUID(),
      entry.changeId,
      entry.accountId,
      entry.channel,
      entry.channelId ?? null,
      entry.at,
      entry.data ? JSON.stringify(entry.data) : null,
    ],
  );
}

/** Queues a monitor's state change (monitor.failing, monitor.recovered) for delivery on one channel. */
export async function enqueueMonitorEvent(
  db: Queryable,
  entry: { monitorId: string; accountId: string; channel: NotificationChannel; channelId?: string; event: string; data: unknown; at: Date },
): Promise<void> {
  await db.query(
    `INSERT INTO notification_outbox (id, monitor_id, account_id, channel, channel_id, event, event_data, created_at, next_attempt_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8::timestamptz, $8::timestamptz)`,
    [
      randomUUID(),
      entry.monitorId,
      entry.accountId,
      entry.channel,
      entry.channelId ?? null,
      entry.event,
      JSON.stringify(entry.data),
      entry.at,
    ],
  );
}

/** The account-wide notice that a plan change stopped some of the account's monitors; data names them and why. */
export const MONITORS_STOPPED_EVENT = 'account.monitors_stopped';

/** The notice that the service behind one of the account's channels refused it for good; data names the channel and the answer. */
export const CHANNEL_FAILING_EVENT = 'account.channel_failing';

/** Queues a notice about the account itself (no change, no one monitor): only by email, to the owner. */
export async function enqueueAccountNotice(
  db: Queryable,
  entry: { accountId: string; event: string; data: unknown; at: Date },
): Promise<void> {
  await db.query(
    `INSERT INTO notification_outbox (id, account_id, channel, event, event_data, created_at, next_attempt_at)
     VALUES ($1, $2, 'email', $3, $4::jsonb, $5::timestamptz, $5::timestamptz)`,
    [randomUUID(), entry.accountId, entry.event, JSON.stringify(entry.data), entry.at],
  );
}
