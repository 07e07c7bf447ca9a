import { latestDigestBoundary } from '../domain/digest-periods.ts';
import type { Database } from '../store/database.ts';
import { accountsAwaitingDigests, queueDigest } from '../store/digests-store.ts';

// Part of the engine's housekeeping, on the engine's clock: each account with
// change emails waiting for a digest gets the digest of the period that ended
// last, as one outbox row the dispatcher sends like any email. An account
// with nothing waiting gets nothing: a quiet period sends no mail.

/** Queues the digests due at `now`; answers how many were queued. */
export async function queueDueDigests(db: Database, now: Date): Promise<number> {
  let queued = 0;
  for (const waiting of await accountsAwaitingDigests(db)) {
    const periodEnd = latestDigestBoundary(now, waiting.kind, waiting.time_zone, waiting.digest_hour);
    // Most rounds fall within a period: no transaction until one has ended with emails in it.
    if (waiting.oldest > periodEnd) continue;
    const id = await db.transaction((tx) => queueDigest(tx, { accountId: waiting.account_id, kind: waiting.kind, periodEnd, at: now }));
    if (id !== null) queued++;
  }
  return queued;
}
