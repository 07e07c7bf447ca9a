// Errors are values with a code; src/http/error-handler.ts maps them to the
// error envelope and HTTP status in one place.

export const ERROR_STATUS = {
  malformed_json: 400,
  malformed_cursor: 400,
  idempotency_key_missing: 400,
  idempotency_key_invalid: 400,
  unknown_field: 400,
  unknown_parameter: 400,
  invalid_request: 400,
  unauthorized: 401,
  pro_required: 403,
  insufficient_scope: 403,
  not_found: 404,
  version_conflict: 409,
  idempotency_key_reused: 409,
  idempotency_request_in_progress: 409,
  monitor_exists: 409,
  allowance_exhausted: 409,
  check_not_allowed: 409,
  backup_unsupported: 409,
  secret_in_use: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  uri_too_long: 414,
  validation_failed: 422,
  preview_invalid: 422,
  target_invalid: 422,
  proxy_unknown: 422,
  proxy_not_allowed: 422,
  rate_limited: 429,
  preview_limited: 429,
  check_limited: 429,
  idempotency_limited: 429,
  internal_error: 500,
  unavailable: 503,
  renderer_busy: 503,
  busy: 503,
  storage_unavailable: 503,
  store_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface FieldDetail {
  field: string;
  message: string;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details?: FieldDetail[];
  /** seconds, sent as Retry-After */
  readonly retryAfter?: number;

  constructor(code: ErrorCode, message: string, options: { details?: FieldDetail[]; retryAfter?: number } = {}) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.details = options.details;
    this.retryAfter = options.retryAfter;
  }
}
