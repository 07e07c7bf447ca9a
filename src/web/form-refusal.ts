import { AppError } from '../errors.ts';
import { knownError } from '../services/known-errors.ts';

// Which failures a dashboard form shows in place, mapped as the API maps them
// (services/known-errors.ts): a refusal of the input, or no room for the work
// right now (a busy renderer or extraction queue) with when to try again.
// Anything else is an error page.

const NO_ROOM_NOW = new Set(['renderer_busy', 'busy']);

/** The refusal the form shows for err, or null when err belongs on an error page. */
export function formRefusal(err: unknown): AppError | null {
  const known = knownError(err);
  if (!known) return null;
  if (known.status < 500) return known;
  if (!NO_ROOM_NOW.has(known.code)) return null;
  const wait = known.retryAfter === undefined ? '' : `, try again in ${known.retryAfter} s`;
  return new AppError(known.code, `Busy${wait}: ${known.message}`, { retryAfter: known.retryAfter });
}
