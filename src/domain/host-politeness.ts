import type { CheckIssue } from './issues.ts';

// Politeness towards the sites we load: a host that throttles us (429, 503),
// answers with an anti-bot wall or cannot be reached is left alone for a while, doubling each time and never
// less than its own Retry-After; the first normal answer clears the backoff.

/** Checks of one host at the same time, across all workers. */
export const DEFAULT_HOST_CONCURRENCY = 2;

const THROTTLE_STATUSES = new Set([429, 503]);

/** The key politeness is kept per: host name and port of the monitor's URL. */
export function hostOf(url: string): string {
  return new URL(url).host;
}

/** What politeness looks at in a load's result (fetch/loader/types.ts LoadResult). */
export interface LoadAnswer {
  /** HTTP status of the final response, null when no response arrived */
  status: number | null;
  issues: CheckIssue[];
  retryAfterSeconds?: number;
}

/** Why the host should be left alone after this load, or null when it answered normally. */
export function backoffReason(result: LoadAnswer): string | null {
  if (result.status !== null && THROTTLE_STATUSES.has(result.status)) return `the site answered HTTP ${result.status}`;
  // A wall is the site refusing automated checks: coming back sooner would only confirm the suspicion.
  if (result.issues.some((i) => i.code === 'blocked')) return 'the site blocked the check';
  const failure = result.issues.find((i) => i.code === 'fetch_failed' || i.code === 'timeout');
  if (result.status === null && failure) return `the site could not be reached (${failure.code})`;
  return null;
}

export function backoffIssue(until: Date, reason: string): CheckIssue {
  return { target_id: null, code: 'site_backoff', message: `${reason}; checks of this site resume after ${until.toISOString()}` };
}
