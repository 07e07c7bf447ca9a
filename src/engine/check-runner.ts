import type { Clock } from '../clock.ts';
import { LoadDeferred } from '../fetch/loader/load-errors.ts';
import type { Database } from '../store/database.ts';
import { deferLease, lockHeldLease } from '../store/check-leases-store.ts';
import { refundCheck } from '../store/procedures/check-allowance.ts';
import type { WorkItem } from '../store/procedures/claim-work.ts';
import type { CommitOutcome, LoadSummary } from '../store/procedures/commit-checks.ts';
import type { CommitCheck } from './commit-batcher.ts';
import type { EngineLogger } from './engine-logger.ts';
import { logRecordedCheck } from './check-log.ts';
import type { Metrics } from '../process-metrics.ts';
import type { Loaders } from '../fetch/loaders.ts';
import type { LoadResult } from '../fetch/loader/types.ts';
import type { TargetExtraction } from '../domain/extract/index.ts';
import type { CheckIssue } from '../domain/issues.ts';
import { changeDiffs } from '../services/change-diffs.ts';
import { screenAndRead } from '../services/blocked-pages.ts';
import { openStepSecrets } from '../services/secrets.ts';
import { readChangesByIds } from '../store/changes-store.ts';

// Runs one claimed check: load the page (outside any transaction: it may take
// up to a minute), tell an anti-bot wall from the page (a wall is the issue
// `blocked`, never content), extract every target, then hand it to the group commit. A renderer without room
// is a capacity deferral: the allowance goes back and the check is retried on
// a later cycle. A page the site says did not change (304 to a conditional
// request) is not extracted at all. Each change recorded has its diff computed in the extraction
// threads and stored at once, so no reader computes one. Failures it goes on
// after are logged and counted, never silent.

/** What the commit needs of a load: not the page itself, which extraction is done with. */
function summarizeLoad({ status, issues, retryAfterSeconds, html, notModified = false, validators }: LoadResult): LoadSummary {
  return { status, issues, retryAfterSeconds, loaded: html !== null || notModified, notModified, validators };
}

export interface RunnerDeps {
  db: Database;
  clock: Clock;
  loaders: Loaders;
  /** the key that opens the secrets the monitor's steps type */
  config: { secretsKey: Buffer | null };
  /** records a finished check (group commit) */
  commit: CommitCheck;
  logger: EngineLogger;
  /** where unexpected exceptions and diffs not stored are counted (the process's /metrics) */
  metrics?: Pick<Metrics, 'checkExceptions' | 'diffStoreFailures'>;
}

export type RunOutcome = CommitOutcome | { outcome: 'deferred' };

type Observed = { load: LoadResult; extractions: TargetExtraction[] | null };

/** Loads the page and reads its targets; 'deferred' when the check is to be handed back unchecked. */
async function observe(deps: RunnerDeps, item: WorkItem, signal?: AbortSignal): Promise<Observed | 'deferred'> {
  try {
    const loaded = await deps.loaders.byMode[item.loadMode].load({
      url: item.url,
      mode: item.loadMode,
      ...(item.proxy === null ? {} : { proxy: item.proxy }),
      signal,
      turn: { account: item.accountId, lane: 'check' },
      validators: item.validators ?? undefined,
      steps: item.steps,
      secrets: await openStepSecrets(deps, item.accountId, item.steps),
    });
    // Stopped mid-load (shutdown): the load proves nothing about the site.
    if (signal?.aborted) return 'deferred';
    // The page after a failed step is not the page the user watches: nothing of it is read (a failed check, never a change).
    if (loaded.issues.some((i) => i.code === 'step_failed')) return { load: { ...loaded, html: null }, extractions: null };
    return await screenAndRead(deps.loaders.extraction, loaded, item.targets, { account: item.accountId, lane: 'check' });
  } catch (err) {
    if (err instanceof LoadDeferred || signal?.aborted) return 'deferred';
    // Loaders report page problems as issues and extraction its timeouts, so anything thrown
    // is a bug: logged with its stack and counted, and still a failed check for the monitor.
    deps.logger.error({ err, monitorId: item.monitorId, loadMode: item.loadMode }, 'unexpected exception in a check');
    deps.metrics?.checkExceptions.inc();
    const issues: CheckIssue[] = [{ target_id: null, code: 'fetch_failed', message: (err as Error).message }];
    return { load: { finalUrl: item.url, status: null, html: null, issues }, extractions: null };
  }
}

/** Gives a claimed check back unchecked (a capacity deferral, a stop): its allowance returns and it is retried later. */
export async function handBack(deps: Pick<RunnerDeps, 'db' | 'clock'>, item: WorkItem): Promise<RunOutcome> {
  return deps.db.transaction(async (tx) => {
    if ((await lockHeldLease(tx, item.monitorId, item.token)) === null) return { outcome: 'lease_lost' };
    await refundCheck(tx, item.accountId, item.reservation);
    await deferLease(tx, item.monitorId, item.token, deps.clock.now());
    return { outcome: 'deferred' };
  });
}

export async function runCheck(deps: RunnerDeps, item: WorkItem, signal?: AbortSignal): Promise<RunOutcome> {
  const startedAt = deps.clock.now();
  const observed = await observe(deps, item, signal);
  // A deferral or a stop: the check is handed back for the next cycle of any worker instead of recorded.
  if (observed === 'deferred') return handBack(deps, item);
  const { load, extractions } = observed;
  const outcome = await deps.commit({ item, observation: { startedAt, load: summarizeLoad(load), extractions }, at: deps.clock.now() });
  if (outcome.outcome !== 'recorded') return outcome;
  logRecordedCheck(deps.logger, item, outcome);
  if (outcome.changes.length > 0) await storeDiffs(deps, item.accountId, outcome.changes);
  return outcome;
}

/** The check is recorded whatever happens here: a diff that could not be stored now is computed by its first reader. */
async function storeDiffs(deps: RunnerDeps, accountId: string, changeIds: string[]): Promise<void> {
  try {
    const changes = await readChangesByIds(deps.db, changeIds);
    await changeDiffs({ db: deps.db, extraction: deps.loaders.extraction, ticket: { account: accountId, lane: 'check' } }, changes);
  } catch (err) {
    deps.logger.warn({ err, changeIds }, 'the diffs of recorded changes could not be stored; their first readers compute them');
    deps.metrics?.diffStoreFailures.inc();
  }
}
