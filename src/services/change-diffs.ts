import type { ChangeDiff } from '../domain/text-diff.ts';
import type { JobTicket } from '../domain/fair-queue.ts';
import type { ExtractionPool } from '../extraction/extraction-pool.ts';
import { readChangeDiffs, saveChangeDiff } from '../store/change-diffs-store.ts';
import type { Queryable } from '../store/database.ts';
import { readTexts } from '../store/texts-store.ts';

// A change's diff is computed once, in the extraction threads, and stored:
// the engine asks for it as soon as it has recorded the change, and every
// reader (API, dashboard, emails, webhooks) takes the stored one. A change
// without one — recorded before diffs were stored, or read in the moment
// before the engine stored its diff — has it computed in the threads on that
// first read, never on the event loop that serves requests.

export interface ChangeDiffDeps {
  db: Queryable;
  extraction: Pick<ExtractionPool, 'diff'>;
  /**
   * whose turn a diff computed now takes in the extraction threads: always the
   * check lane, as a change's diff is computed once and then read by everyone
   * (concurrent first reads must not be refused as an interactive flood)
   */
  ticket: JobTicket;
}

interface DiffedChange {
  id: string;
  before_text_hash: string | null;
  after_text_hash: string | null;
}

/** The diff of each change, by id: stored ones as they are, missing ones computed in the threads and stored. */
export async function changeDiffs(deps: ChangeDiffDeps, changes: DiffedChange[]): Promise<Map<string, ChangeDiff>> {
  const diffs = await readChangeDiffs(
    deps.db,
    changes.map((c) => c.id),
  );
  const missing = changes.filter((c) => !diffs.has(c.id));
  if (missing.length === 0) return diffs;
  const hashes = missing.flatMap((c) => [c.before_text_hash, c.after_text_hash]).filter((h): h is string => h !== null);
  const texts = await readTexts(deps.db, [...new Set(hashes)]);
  const textOf = (hash: string | null) => (hash === null ? null : (texts.get(hash) ?? null));
  for (const change of missing) {
    const diff = await deps.extraction.diff(textOf(change.before_text_hash), textOf(change.after_text_hash), deps.ticket);
    await saveChangeDiff(deps.db, change.id, diff);
    diffs.set(change.id, diff);
  }
  return diffs;
}
