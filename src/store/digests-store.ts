import { randomUUID } from 'node:crypto';
import type { ChangeRow } from './changes-store.ts';
import type { Queryable } from './database.ts';

// Email digests over the outbox (migration 026): a change email skipped as
// 'daily_digest' or 'weekly_digest' waits for its account's next digest,
// which takes it by setting digest_id.

export type DigestKind = 'daily' | 'weekly';

export const digestEvent = (kind: DigestKind) => `digest.${kind}`;
export const digestSkipReason = (kind: DigestKind) => `${kind}_digest` as const;

export interface AwaitingDigest {
  account_id: string;
  kind: DigestKind;
  time_zone: string;
  digest_hour: number;
  /** when the oldest waiting email was queued: no digest is due before the first boundary after it */
  oldest: Date;
}

/** The accounts with change emails waiting for a digest, by kind, with what places their digests in time. */
export async function accountsAwaitingDigests(db: Queryable): Promise<AwaitingDigest[]> {
  return db.query<AwaitingDigest>(
    `SELECT o.account_id, replace(o.skipped_reason, '_digest', '') AS kind, a.time_zone, a.digest_hour, min(o.created_at) AS oldest
     FROM notification_outbox o JOIN accounts a ON a.id = o.account_id
     WHERE o.digest_id IS NULL AND o.skipped_reason IN ('daily_digest', 'weekly_digest')
     GROUP BY o.account_id, o.skipped_reason, a.time_zone, a.digest_hour`,
  );
}

/**
 * Queues the digest of the period that ended at `periodEnd`, taking every
 * waiting email queued (by its check) by then; nothing when none waits. An
 * email the dispatcher had not yet set aside at that moment goes with the next
 * period's digest: late, never lost nor sent twice. A second call for
 * the same period (another worker) inserts nothing: the unique index holds it
 * until the first commits, then its emails are taken. Answers the digest's id.
 */
export async function queueDigest(
  tx: Queryable,
  entry: { accountId: string; kind: DigestKind; periodEnd: Date; at: Date },
): Promise<string | null> {
  const reason = digestSkipReason(entry.kind);
  const inserted = await tx.query<{ id: string }>(
    `INSERT INTO notification_outbox (id, account_id, channel, event, event_data, created_at, next_attempt_at)
     SELECT $1, $2, 'email', $3, jsonb_build_object('period_end', $4::text), $5::timestamptz, $5::timestamptz
     WHERE EXISTS (SELECT 1 FROM notification_outbox
                   WHERE account_id = $2 AND skipped_reason = $6 AND digest_id IS NULL AND created_at <= $4::timestamptz)
     ON CONFLICT DO NOTHING RETURNING id`,
    [randomUUID(), entry.accountId, digestEvent(entry.kind), entry.periodEnd.toISOString(), entry.at, reason],
  );
  const id = inserted[0]?.id;
  if (id === undefined) return null;
  await tx.query(
    `UPDATE notification_outbox SET digest_id = $1
     WHERE account_id = $2 AND skipped_reason = $3 AND digest_id IS NULL AND created_at <= $4::timestamptz`,
    [id, entry.accountId, reason, entry.periodEnd],
  );
  return id;
}

export interface DigestChange extends ChangeRow {
  monitor_name: string | null;
  monitor_url: string;
  monitor_targets: { id: string; label?: string }[];
}

export interface Digest {
  kind: DigestKind;
  periodEnd: Date;
  account: { id: string; email: string; plan: string; time_zone: string };
  /** oldest first */
  changes: DigestChange[];
}

/** A digest row's period, account and the changes of the emails it took (those retention has not removed). */
export async function readDigest(db: Queryable, outboxId: string): Promise<Digest | null> {
  const heads = await db.query<{ event: string; period_end: string; account: Digest['account'] }>(
    `SELECT o.event, o.event_data ->> 'period_end' AS period_end,
       jsonb_build_object('id', a.id, 'email', a.email, 'plan', a.plan, 'time_zone', a.time_zone) AS account
     FROM notification_outbox o JOIN accounts a ON a.id = o.account_id WHERE o.id = $1`,
    [outboxId],
  );
  const head = heads[0];
  if (!head) return null;
  const changes = await db.query<DigestChange>(
    `SELECT c.*, m.name AS monitor_name, m.url AS monitor_url, m.targets AS monitor_targets
     FROM notification_outbox o
     CROSS JOIN LATERAL jsonb_array_elements_text(COALESCE(o.event_data -> 'change_ids', jsonb_build_array(o.change_id))) AS ids(id)
     JOIN changes c ON c.id = ids.id::uuid
     JOIN monitors m ON m.id = c.monitor_id
     WHERE o.digest_id = $1
     ORDER BY c.detected_at, c.id`,
    [outboxId],
  );
  return {
    kind: head.event === digestEvent('weekly') ? 'weekly' : 'daily',
    periodEnd: new Date(head.period_end),
    account: head.account,
    changes,
  };
}
