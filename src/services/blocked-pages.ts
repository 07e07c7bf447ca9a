import { blockedMessage, screenedPart } from '../domain/blocked-page.ts';
import type { TargetExtraction } from '../domain/extract/index.ts';
import type { JobTicket } from '../domain/fair-queue.ts';
import type { Target } from '../domain/targets.ts';
import type { ExtractionPool } from '../extraction/extraction-pool.ts';
import { ExtractionTimeout } from '../extraction/queue-errors.ts';
import { timedOut } from '../extraction/timed-extraction.ts';
import { loadIssue, type LoadResult } from '../fetch/loader/types.ts';

// A load as checks and previews read it: an anti-bot wall (DESIGN §4 Blocked
// pages) becomes the load issue `blocked` with its reason and no page, so its
// markup is never read as content nor recorded as a change. The classifier
// runs in an extraction thread on the start of the document only.

/** The load unchanged, or with a wall turned into the issue `blocked` (its other issues and its page dropped). */
export async function screenLoad(pool: ExtractionPool, load: LoadResult, ticket: JobTicket): Promise<LoadResult> {
  const document = load.html ?? load.errorPage ?? null;
  if (document === null && load.cfMitigated === undefined) return load;
  let reason: string | null;
  try {
    reason = await pool.screen(
      {
        ...(document === null ? { head: '', length: 0 } : screenedPart(document)),
        status: load.status,
        cfMitigated: load.cfMitigated ?? null,
      },
      ticket,
    );
  } catch (error) {
    // A page too costly to screen is no wall (walls are small); reading it has its own budget.
    if (error instanceof ExtractionTimeout) return load;
    throw error;
  }
  return reason === null ? load : blockedLoad(load, reason);
}

function blockedLoad(load: LoadResult, reason: string): LoadResult {
  const { errorPage: _dropped, ...rest } = load;
  return { ...rest, html: null, issues: [loadIssue('blocked', blockedMessage(reason, load.status))] };
}

/**
 * A check's load screened and its targets read: a page in one job of the
 * threads (screened, then read unless it is a wall), a load without a page
 * screened alone. Extractions are null when there is no page to read; past
 * the budget each target has the issue extraction_timeout.
 */
export async function screenAndRead(
  pool: ExtractionPool,
  load: LoadResult,
  targets: Target[],
  ticket: JobTicket,
): Promise<{ load: LoadResult; extractions: TargetExtraction[] | null }> {
  if (load.html === null) return { load: await screenLoad(pool, load, ticket), extractions: null };
  try {
    const read = await pool.check(
      load.html,
      load.finalUrl,
      targets,
      { status: load.status, cfMitigated: load.cfMitigated ?? null },
      ticket,
    );
    if (read.blocked !== null) return { load: blockedLoad(load, read.blocked), extractions: null };
    return { load, extractions: read.extractions };
  } catch (error) {
    if (error instanceof ExtractionTimeout) return { load, extractions: timedOut(targets, error) };
    throw error;
  }
}
