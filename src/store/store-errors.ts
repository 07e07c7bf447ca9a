// The one place that tells a store outage from a bug. A store without room
// (PostgreSQL's class 53, a full or over-quota file system under the embedded
// store) or out of reach (connection errors, class 08, an administrator's
// shutdown) is a condition that passes: callers answer "try again later"
// instead of an internal error. A failed write is rolled back whole by its
// transaction, so nothing of it is kept.

export type StoreOutageCode = 'storage_unavailable' | 'store_unavailable';

/** The store could not do the work now; nothing of it was written. */
export class StoreOutage extends Error {
  readonly code: StoreOutageCode;
  readonly retryAfterSeconds: number;

  constructor(code: StoreOutageCode, message: string, retryAfterSeconds: number, cause: unknown) {
    super(message, { cause });
    this.name = 'StoreOutage';
    this.code = code;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** Room comes back when an operator frees some; a lost connection usually comes back within seconds. */
const STORAGE_RETRY_SECONDS = 60;
const CONNECTION_RETRY_SECONDS = 5;

// SQLSTATEs: 53300 too_many_connections is a refused connection, the rest of 53 is a lack of room or memory.
const UNREACHABLE_SQLSTATES = new Set(['53300', '57P01', '57P02', '57P03']);
const FULL_SYSTEM_CODES = new Set(['ENOSPC', 'EDQUOT']);
const UNREACHABLE_SYSTEM_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
// The pg driver reports a lost or unusable connection with these messages and no code.
const LOST_CONNECTION_MESSAGES = [/^Connection terminated/, /is not queryable/, /^the embedded database (?:thread failed|is closed)/];

function outageCode(err: unknown): StoreOutageCode | null {
  if (!(err instanceof Error)) return null;
  const { code, syscall } = err as Error & { code?: unknown; syscall?: unknown };
  if (typeof code === 'string') {
    if (UNREACHABLE_SQLSTATES.has(code) || code.startsWith('08')) return 'store_unavailable';
    if (/^53[0-9A-Z]{3}$/.test(code) || FULL_SYSTEM_CODES.has(code)) return 'storage_unavailable';
    if (UNREACHABLE_SYSTEM_CODES.has(code) || (code === 'ENOENT' && syscall === 'connect')) return 'store_unavailable';
  }
  if (LOST_CONNECTION_MESSAGES.some((pattern) => pattern.test(err.message))) return 'store_unavailable';
  // Node wraps the attempts on every address of a host in one AggregateError.
  const inner = err instanceof AggregateError ? err.errors : err.cause === undefined ? [] : [err.cause];
  for (const each of inner) {
    const found = outageCode(each);
    if (found) return found;
  }
  return null;
}

/** The outage that err reports, or null when it is some other failure. */
export function storeOutage(err: unknown): StoreOutage | null {
  if (err instanceof StoreOutage) return err;
  switch (outageCode(err)) {
    case 'storage_unavailable':
      return new StoreOutage(
        'storage_unavailable',
        'the store has no room for this write now; nothing was saved, try again later',
        STORAGE_RETRY_SECONDS,
        err,
      );
    case 'store_unavailable':
      return new StoreOutage('store_unavailable', 'the store cannot be reached now; try again shortly', CONNECTION_RETRY_SECONDS, err);
    default:
      return null;
  }
}
