import type { CheckIssue } from '../domain/issues.ts';
import { nextBackoff } from '../domain/schedule.ts';
import type { Queryable } from '../store/database.ts';
import { clearBackoff, lockBackoff, writeBackoff } from '../store/host-backoff-store.ts';
import type { LoadResult } from '../fetch/loader/types.ts';

// Politeness towards the sites we load: a host that throttles us (429, 503)
// or cannot be reached is left alone for a while, doubling each time and never
// less than its own Retry-After; the first normal answer clears the backoff.

/** Checks of one host at the same time, across all workers. */
export const DEFAULT_HOST_CONCURRENCY = 2;

const THROTTLE_STATUSES = new Set([429, 503]);

/** The key politeness is kept per: host name and port of the monitor's URL. */
export function hostOf(url: string): string {
  return new URL(url).host;
}

/** What politeness looks at in a load's result. */
export type LoadAnswer = Pick<LoadResult, 'status' | 'issues' | 'retryAfterSeconds'>;

/** Why the host should be left alone after this load, or null when it answered normally. */
export function backoffReason(result: LoadAnswer): string | null {
  if (result.status !== null && THROTTLE_STATUSES.has(result.status)) return `the site answered HTTP ${result.status}`;
  const failure = result.issues.find((i) => i.code === 'fetch_failed' || i.code === 'timeout');
  if (result.status === null && failure) return `the site could not be reached (${failure.code})`;
  return null;
}

export function backoffIssue(until: Date, reason: string): CheckIssue {
  return { target_id: null, code: 'site_backoff', message: `${reason}; checks of this site resume after ${until.toISOString()}` };
}

/**
 * Records the load's effect on its host's backoff inside the check's
 * transaction and returns the issue to show, if the host is now backed off.
 * `hostHasBackoff`: whether the host had a backoff row when the commit locked
 * its lease. Without one there is nothing to clear: a row another check writes
 * after that is as if that check had committed after this one.
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
