import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.ts';
import { isStoreOutage, knownError } from '../services/known-errors.ts';
import { validationError } from './validation.ts';

// The one place where errors become the envelope {error: {code, message, request_id}}.

function toAppError(err: FastifyError & { validationContext?: string }): AppError {
  const known = knownError(err);
  if (known) return known;
  if (err.validation) return validationError(err.validation, err.validationContext);
  switch (err.code) {
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new AppError('uri_too_long', 'a path segment is longer than 100 characters; no resource has such an id');
    case 'FST_ERR_BAD_URL':
      return new AppError('invalid_request', 'the path is not a valid URL (bad percent-encoding)');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('payload_too_large', 'the request body exceeds 16 KiB');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('unsupported_media_type', 'the request body must be JSON (Content-Type: application/json)');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new AppError('malformed_json', 'the request body is not valid JSON');
  }
  if (err instanceof SyntaxError && err.statusCode === 400) return new AppError('malformed_json', 'the request body is not valid JSON');
  if (err.statusCode === 404) return new AppError('not_found', 'resource not found');
  if (err.statusCode === 400) return new AppError('invalid_request', 'invalid request');
  return new AppError('internal_error', 'internal error; quote the request_id when contacting support');
}

/**
 * Errors found before routing (a bad or over-long path): they reach no hook,
 * so the headers every response carries are set here.
 */
export function sendFrameworkError(err: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  reply.header('X-Request-Id', request.id).header('Cache-Control', 'no-store');
  void sendError(err, request, reply);
}

export function sendError(err: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const appError = toAppError(err);
  if (appError.code === 'internal_error') request.log.error({ err }, 'unhandled error');
  else if (isStoreOutage(appError)) request.log.warn({ err }, 'store outage');
  if (appError.retryAfter !== undefined) reply.header('Retry-After', String(appError.retryAfter));
  return reply.status(appError.status).send({
    error: {
      code: appError.code,
      message: appError.message,
      request_id: request.id,
      ...(appError.details ? { details: appError.details } : {}),
    },
  });
}
