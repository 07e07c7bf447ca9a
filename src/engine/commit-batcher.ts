import type { Database } from '../store/database.ts';
import type { CommitOutcome, PendingCheck } from '../store/procedures/commit-checks.ts';
import { storeProcedures } from '../store/procedures/index.ts';

// Group commit: finished checks wait a moment for others and are committed
// together, one transaction per batch, so a busy engine pays one commit (on
// PostgreSQL one WAL flush) for many checks. One batch is committed at a time
// per process; checks finishing meanwhile form the next one, so batches grow
// with the load and a lone check waits at most `maxWaitMs`. A check is
// acknowledged (its promise settles) only once its transaction committed.
// When a batch fails as a whole, each of its checks is committed again on its
// own; a check whose own rows failed is tried once more alone, so one bad
// check never costs the others theirs.

export interface CommitBatchSettings {
  /** checks per transaction at most */
  maxChecks: number;
  /** how long a finished check waits for others before its batch is committed */
  maxWaitMs: number;
}

export const DEFAULT_COMMIT_BATCH: CommitBatchSettings = { maxChecks: 100, maxWaitMs: 20 };

interface Entry {
  check: PendingCheck;
  resolve(outcome: CommitOutcome): void;
  reject(error: unknown): void;
}

export type CommitCheck = (check: PendingCheck) => Promise<CommitOutcome>;

export function createCommitBatcher(db: Database, settings: CommitBatchSettings = DEFAULT_COMMIT_BATCH): CommitCheck {
  let waiting: Entry[] = [];
  let timer: NodeJS.Timeout | null = null;
  let committing = false;

  async function commitBatch(batch: Entry[]): Promise<void> {
    let results;
    try {
      results = await db.transact(
        storeProcedures.commitChecks,
        batch.map((entry) => entry.check),
      );
    } catch (error) {
      if (batch.length === 1) return batch[0]!.reject(error);
      for (const entry of batch) await commitBatch([entry]);
      return;
    }
    const offenders: Entry[] = [];
    results.forEach((result, index) => {
      const entry = batch[index]!;
      if (result.ok) entry.resolve(result.outcome);
      else if (batch.length === 1) entry.reject(result.error);
      else offenders.push(entry);
    });
    for (const entry of offenders) await commitBatch([entry]);
  }

  function next(): void {
    if (committing || waiting.length === 0) return;
    if (timer) clearTimeout(timer);
    timer = null;
    committing = true;
    const batch = waiting.slice(0, settings.maxChecks);
    waiting = waiting.slice(batch.length);
    void commitBatch(batch).finally(() => {
      committing = false;
      // Checks that finished during this commit have waited long enough.
      next();
    });
  }

  return (check) =>
    new Promise<CommitOutcome>((resolve, reject) => {
      waiting.push({ check, resolve, reject });
      if (waiting.length >= settings.maxChecks) next();
      else if (timer === null && !committing) timer = setTimeout(next, settings.maxWaitMs);
    });
}
