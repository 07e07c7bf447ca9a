import { backoffIssue, backoffReason, type LoadAnswer } from '../../domain/host-politeness.ts';
import type { CheckIssue } from '../../domain/issues.ts';
import { nextBackoff } from '../../domain/schedule.ts';
import type { Queryable } from '../database.ts';
import { clearBackoff, lockBackoff, writeBackoff } from '../host-backoff-store.ts';

/**
 * Records the load's effect on its host's backoff inside the check's
 * transaction (domain/host-politeness.ts says when) and returns the issue to
 * show, if the host is now backed off. `hostHasBackoff`: whether the host had
 * a backoff row when the commit locked its lease. Without one there is nothing
 * to clear: a row another check writes after that is as if that check had
 * committed after this one.
 */
export async function recordHostOutcome(
  tx: Queryable,
  host: string,
  result: LoadAnswer,
  at: Date,
  hostHasBackoff: boolean,
): Promise<CheckIssue | null> {
  const reason = backoffReason(result);
  if (reason === null) {
    if (result.status !== null && hostHasBackoff) await clearBackoff(tx, host);
    return null;
  }
  const previous = await lockBackoff(tx, host);
  const seconds = nextBackoff(previous?.backoff_seconds ?? null, result.retryAfterSeconds ?? null);
  const until = new Date(at.getTime() + seconds * 1000);
  await writeBackoff(tx, { host, until, backoff_seconds: seconds, reason });
  return backoffIssue(until, reason);
}
