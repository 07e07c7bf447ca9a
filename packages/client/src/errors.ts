/** One field the server named in a 400 or 422 answer. */
export interface ErrorDetail {
  field: string;
  message: string;
}

/**
 * An error answer of the API, as a value: `code` is the machine-readable
 * reason (e.g. `rate_limited`, `version_conflict`), `requestId` what support
 * asks for, `retryAfter` the seconds the server asked to wait, if any.
 */
export class PagewatchError extends Error {
  override readonly name = 'PagewatchError';

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly requestId: string | null,
    readonly details: ErrorDetail[],
    readonly retryAfter: number | null,
  ) {
    super(`${status} ${code}: ${message}`);
  }
}

type ErrorEnvelope = { error?: { code?: unknown; message?: unknown; request_id?: unknown; details?: unknown } };

export function errorFromResponse(status: number, headers: Headers, body: unknown): PagewatchError {
  const error = (body as ErrorEnvelope | null)?.error;
  const details = Array.isArray(error?.details)
    ? error.details.filter(
        (d: Partial<ErrorDetail> | null): d is ErrorDetail => typeof d?.field === 'string' && typeof d?.message === 'string',
      )
    : [];
  return new PagewatchError(
    status,
    typeof error?.code === 'string' ? error.code : `http_${status}`,
    typeof error?.message === 'string' ? error.message : `the server answered ${status}`,
    typeof error?.request_id === 'string' ? error.request_id : headers.get('x-request-id'),
    details,
    retryAfterSeconds(headers),
  );
}

export function retryAfterSeconds(headers: Headers): number | null {
  const value = headers.get('retry-after');
  return value !== null && /^\d+$/.test(value) ? Number(value) : null;
}
