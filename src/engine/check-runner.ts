import type { Clock } from '../clock.ts';
import { LoadDeferred } from '../fetch/loader/load-errors.ts';
import { extractWithin } from '../extraction/extraction-pool.ts';
import type { Database } from '../store/database.ts';
import { deferLease, lockHeldLease } from '../store/check-leases-store.ts';
import { refundCheck } from './check-allowance.ts';
import type { WorkItem } from './check-claims.ts';
import { summarizeLoad, type CommitOutcome } from './check-commit.ts';
import type { CommitCheck } from './commit-batcher.ts';
import type { Loaders } from '../fetch/loaders.ts';
import type { LoadResult } from '../fetch/loader/types.ts';
import { changeDiffs } from '../services/change-diffs.ts';
import { readChangesByIds } from '../store/changes-store.ts';

// Runs one claimed check: load the page (outside any transaction: it may take
// up to a minute), extract every target, then hand it to the group commit. A renderer without room
// is a capacity deferral: the allowance goes back and the check is retried on
// a later cycle. Each change recorded has its diff computed in the extraction
// threads and stored at once, so no reader computes one.

export interface RunnerDeps {
  db: Database;
  clock: Clock;
  loaders: Loaders;
  /** records a finished check (group commit) */
  commit: CommitCheck;
}

export type RunOutcome = CommitOutcome | { outcome: 'deferred' };

async function load(deps: RunnerDeps, item: WorkItem, signal?: AbortSignal): Promise<LoadResult | 'deferred'> {
  try {
    return await deps.loaders.byMode[item.loadMode].load({
      url: item.url,
      mode: item.loadMode,
      signal,
      turn: { account: item.accountId, lane: 'check' },
    });
  } catch (err) {
    if (err instanceof LoadDeferred) return 'deferred';
    // Loaders report page problems as issues; anything thrown is still a failed load, never a value.
    return {
      finalUrl: item.url,
      status: null,
      html: null,
      issues: [{ target_id: null, code: 'fetch_failed', message: (err as Error).message }],
    };
  }
}

/** Gives a claimed check back unchecked (a capacity deferral, a stop): its allowance returns and it is retried later. */
export async function handBack(deps: RunnerDeps, item: WorkItem): Promise<RunOutcome> {
  return deps.db.transaction(async (tx) => {
    if ((await lockHeldLease(tx, item.monitorId, item.token)) === null) return { outcome: 'lease_lost' };
    await refundCheck(tx, item.accountId, item.reservation);
    await deferLease(tx, item.monitorId, item.token, deps.clock.now());
    return { outcome: 'deferred' };
  });
}

export async function runCheck(deps: RunnerDeps, item: WorkItem, signal?: AbortSignal): Promise<RunOutcome> {
  const startedAt = deps.clock.now();
  const result = await load(deps, item, signal);
  // Stopped mid-load (shutdown): the load proves nothing about the site, so the
  // check is handed back for the next cycle of any worker instead of recorded.
  if (result === 'deferred' || signal?.aborted) return handBack(deps, item);
  const extractions =
    result.html === null
      ? null
      : await extractWithin(deps.loaders.extraction, result.html, result.finalUrl, item.targets, {
          account: item.accountId,
          lane: 'check',
        });
  const outcome = await deps.commit({ item, observation: { startedAt, load: summarizeLoad(result), extractions }, at: deps.clock.now() });
  if (outcome.outcome === 'recorded' && outcome.changes.length > 0) await storeDiffs(deps, item.accountId, outcome.changes);
  return outcome;
}

/** The check is recorded whatever happens here: a diff that could not be stored now is computed by its first reader. */
async function storeDiffs(deps: RunnerDeps, accountId: string, changeIds: string[]): Promise<void> {
  try {
    const changes = await readChangesByIds(deps.db, changeIds);
    await changeDiffs({ db: deps.db, extraction: deps.loaders.extraction, ticket: { account: accountId, lane: 'check' } }, changes);
  } catch {
    return;
  }
}
