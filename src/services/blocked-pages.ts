import { blockedMessage, SCREENED_CHARS } from '../domain/blocked-page.ts';
import type { JobTicket } from '../domain/fair-queue.ts';
import type { PageSource } from '../domain/page-source.ts';
import { ExtractionTimeout, type ExtractionPool } from '../extraction/extraction-pool.ts';
import { loadIssue, type LoadResult } from '../fetch/loader/types.ts';

// A load as checks and previews read it: an anti-bot wall (DESIGN §4 Blocked
// pages) becomes the load issue `blocked` with its reason and no page, so its
// markup is never read as content nor recorded as a change. The classifier
// runs in an extraction thread on the start of the document only.

function head(source: PageSource): PageSource {
  return typeof source === 'string'
    ? source.slice(0, SCREENED_CHARS)
    : // A copy of the start: posting a view would copy the whole page's buffer to the thread.
      { bytes: source.bytes.slice(0, SCREENED_CHARS), charset: source.charset };
}

function lengthOf(source: PageSource): number {
  return typeof source === 'string' ? source.length : source.bytes.length;
}

/** The load unchanged, or with a wall turned into the issue `blocked` (its other issues and its page dropped). */
export async function screenLoad(pool: ExtractionPool, load: LoadResult, ticket: JobTicket): Promise<LoadResult> {
  const document = load.html ?? load.errorPage ?? null;
  if (document === null && load.cfMitigated === undefined) return load;
  let reason: string | null;
  try {
    reason = await pool.screen(
      {
        head: document === null ? '' : head(document),
        length: document === null ? 0 : lengthOf(document),
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
  if (reason === null) return load;
  const { errorPage: _dropped, ...rest } = load;
  return { ...rest, html: null, issues: [loadIssue('blocked', blockedMessage(reason, load.status))] };
}
