import { AppError } from '../errors.ts';
import { ExtractionTimeout, JobCancelled, QueueFull } from '../extraction/queue-errors.ts';
import { BrowserUnavailable, RendererBusy } from '../fetch/loader/load-errors.ts';
import { storeOutage } from '../store/store-errors.ts';

// Every error the services and what they use (loaders, extraction queues, the
// store) raise on purpose, as the AppError the API answers with and the
// dashboard shows: one mapping for both, so neither answers a known condition
// with an internal error.

/** The AppError for err, or null when err is not one the system raises on purpose (a bug). */
export function knownError(err: unknown): AppError | null {
  if (err instanceof AppError) return err;
  if (err instanceof RendererBusy) return new AppError('renderer_busy', err.message, { retryAfter: err.retryAfterSeconds });
  if (err instanceof BrowserUnavailable) return new AppError('unavailable', err.message, { retryAfter: err.retryAfterSeconds });
  if (err instanceof QueueFull) return new AppError('busy', err.message, { retryAfter: err.retryAfterSeconds });
  // Previews and checks answer a timeout as an issue; a read that needs a
  // diff or a feed computed now (the threads were overloaded) is asked to come back.
  if (err instanceof ExtractionTimeout)
    return new AppError('busy', `the extraction threads did not finish this within ${err.budgetMs / 1000} s; try again later`, {
      retryAfter: Math.max(1, Math.ceil(err.budgetMs / 1000)),
    });
  // A job dropped because its client left: the answer reaches nobody.
  if (err instanceof JobCancelled) return new AppError('unavailable', err.message);
  const outage = storeOutage(err);
  if (outage) return new AppError(outage.code, outage.message, { retryAfter: outage.retryAfterSeconds });
  return null;
}

/** A store that is full or out of reach: an operator must hear of it, as a warning (nothing is wrong with the code). */
export function isStoreOutage(err: AppError): boolean {
  return err.code === 'storage_unavailable' || err.code === 'store_unavailable';
}
