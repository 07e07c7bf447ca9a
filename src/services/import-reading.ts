import { ImportSourceError } from '../domain/imports/import-source.ts';
import type { ImportPlan } from '../domain/imports/monitor-draft.ts';
import type { ImportReading } from '../extraction/extraction-jobs.ts';
import { ExtractionTimeout } from '../extraction/queue-errors.ts';
import type { Loaders } from '../fetch/loaders.ts';
import type { Principal } from './tokens.ts';

// The dashboard's upload is read in the extraction threads, in the uploading
// account's interactive turn and within the job budget: inflating an archive
// and parsing its JSON (up to the import limits, a zip bomb included) would
// otherwise hold the event loop that answers every other request.

/** The monitors the uploaded file describes; a file that is not an import, or too costly to read, is an ImportSourceError. */
export async function readUploadedImport(
  deps: { loaders: Loaders },
  principal: Principal,
  file: Buffer,
  signal: AbortSignal,
): Promise<ImportPlan> {
  const ticket = { account: principal.accountId, lane: 'interactive', signal } as const;
  let reading: ImportReading;
  try {
    reading = await deps.loaders.extraction.run({ kind: 'importSource', file }, ticket);
  } catch (err) {
    if (err instanceof ExtractionTimeout) throw new ImportSourceError(`it took longer than ${err.budgetMs / 1000} s to read`);
    throw err;
  }
  if ('refusal' in reading) throw new ImportSourceError(reading.refusal);
  return reading.plan;
}
