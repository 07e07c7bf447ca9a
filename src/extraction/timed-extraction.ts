import type { TargetExtraction } from '../domain/extract/index.ts';
import type { JobTicket } from '../domain/fair-queue.ts';
import type { PageSource } from '../domain/page-source.ts';
import type { Target } from '../domain/targets.ts';
import type { ExtractionPool } from './extraction-pool.ts';
import { ExtractionTimeout } from './queue-errors.ts';

// Targets past the extraction budget are read as issues, not thrown: a check
// records them and a preview's evaluation shows them.

/** Every target of a job that ran out of time: an issue each, never a value. */
export function timedOut(targets: Target[], error: ExtractionTimeout): TargetExtraction[] {
  return targets.map((target) => ({
    target_id: target.id,
    ok: false,
    value: null,
    display: null,
    links: null,
    issues: [
      { target_id: target.id, code: 'extraction_timeout', message: `${error.message}; the page is too large or the selection too costly` },
    ],
    text: null,
  }));
}

/** The targets read by the pool, or an extraction_timeout issue for each when the budget ran out. */
export async function extractWithin(
  pool: ExtractionPool,
  html: PageSource,
  finalUrl: string,
  targets: Target[],
  ticket: JobTicket,
): Promise<TargetExtraction[]> {
  try {
    return await pool.targets(html, finalUrl, targets, ticket);
  } catch (error) {
    if (error instanceof ExtractionTimeout) return timedOut(targets, error);
    throw error;
  }
}
