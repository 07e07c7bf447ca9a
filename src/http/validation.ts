import { Ajv, type ErrorObject } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { isUuid } from '../domain/ids.ts';
import { AppError, type FieldDetail } from '../errors.ts';

// Bodies are validated strictly (no coercion, unknown fields kept so they can
// be rejected); query strings and path parameters are coerced from text.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

// ajv-formats accepts more than the store can hold: "urn:uuid:…" ids, leap
// seconds, year 0 and offsets that move a time past year 9999. The API's
// formats are what PostgreSQL accepts too, so such input is a 400, never a 500.
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;

export function isStorableDateTime(text: string): boolean {
  if (!RFC3339.test(text)) return false;
  const at = new Date(text);
  if (Number.isNaN(at.getTime())) return false;
  // Date rolls 2026-02-30 over to March; the calendar day must exist as written.
  const [year0, month, day] = text.slice(0, 10).split('-').map(Number) as [number, number, number];
  if (month < 1 || month > 12 || day < 1 || day > new Date(Date.UTC(year0, month, 0)).getUTCDate()) return false;
  const year = at.getUTCFullYear();
  return year >= 1 && year <= 9999;
}

function makeAjv(coerce: boolean): Ajv {
  // verbose: errors carry the failing schema, whose description explains a pattern to people.
  const ajv = new Ajv({ allErrors: true, removeAdditional: false, useDefaults: true, coerceTypes: coerce, strict: false, verbose: true });
  addFormats(ajv);
  ajv.addFormat('uuid', isUuid);
  ajv.addFormat('date-time', { type: 'string', validate: isStorableDateTime });
  return ajv;
}

/** Where a request part holds the NUL character (which no stored text may hold), as a field path, or null. */
export function nulField(value: unknown, path = ''): string | null {
  if (typeof value === 'string') return value.includes('\u0000') ? path || '(root)' : null;
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const found = nulField(item, `${path}[${i}]`);
      if (found) return found;
    }
    return null;
  }
  if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const field = path ? `${path}.${key}` : key;
      if (key.includes('\u0000')) return field;
      const found = nulField(item, field);
      if (found) return found;
    }
  }
  return null;
}

/** The error for a NUL character found in a request part. */
export function nulError(part: 'body' | 'querystring' | 'params', field: string): AppError {
  if (part === 'params') return new AppError('not_found', 'resource not found');
  const detail = [{ field, message: 'must not contain the NUL character (U+0000)' }];
  return part === 'body'
    ? new AppError('validation_failed', 'the request body is not a valid configuration', { details: detail })
    : new AppError('invalid_request', 'invalid query parameter', { details: detail });
}

// Built on first use, not at import time.
let instances: { body: Ajv; text: Ajv } | null = null;

// Compiled once per process and kind of part, keyed by the schema's JSON:
// route modules make their schema objects anew whenever the application is
// built, and Ajv's own cache, keyed by the object, compiled and kept each one
// again (serialization.ts says why that matters).
const validators = new Map<string, ReturnType<FastifySchemaCompiler<unknown>>>();

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const body = httpPart === 'body';
  const key = `${body ? 'body' : 'text'} ${JSON.stringify(schema)}`;
  let validate = validators.get(key);
  if (!validate) {
    instances ??= { body: makeAjv(false), text: makeAjv(true) };
    validate = (body ? instances.body : instances.text).compile(schema as object) as ReturnType<FastifySchemaCompiler<unknown>>;
    validators.set(key, validate);
  }
  return validate;
};

/** `/targets/0/selection` → `targets[0].selection` */
function fieldPath(instancePath: string, extra?: string): string {
  const parts = instancePath.split('/').filter(Boolean);
  if (extra) parts.push(extra);
  return parts.reduce((path, part) => (/^\d+$/.test(part) ? `${path}[${part}]` : path ? `${path}.${part}` : part), '');
}

function unknownNames(errors: ErrorObject[]): string[] {
  return [
    ...new Set(
      errors
        .filter((e) => e.keyword === 'additionalProperties')
        .map((e) => fieldPath(e.instancePath, (e.params as { additionalProperty: string }).additionalProperty)),
    ),
  ];
}

const FORMAT_TEXT: Record<string, string> = {
  uuid: 'must be a UUID such as 3f2b8c1e-5d4a-4e8f-9a1b-2c3d4e5f6a7b',
  'date-time': 'must be an RFC 3339 date-time such as 2026-11-25T08:00:00Z',
  uri: 'must be an absolute URL',
  email: 'must be an email address',
};

/** What a schema error means, in words for people (never a raw pattern). */
function humanMessage(e: ErrorObject): string {
  const params = e.params as Record<string, unknown>;
  const description = (e.parentSchema as { description?: string } | undefined)?.description;
  switch (e.keyword) {
    case 'required':
      return 'is required';
    case 'type':
      return `must be ${params.type === 'integer' ? 'a whole number' : params.type === 'object' ? 'an object' : params.type === 'array' ? 'a list' : `a ${String(params.type)}`}`;
    case 'minimum':
      return `must be at least ${String(params.limit)}`;
    case 'maximum':
      return `must be at most ${String(params.limit)}`;
    case 'minLength':
      return params.limit === 1 ? 'must not be empty' : `must be at least ${String(params.limit)} characters`;
    case 'maxLength':
      return `must be at most ${String(params.limit)} characters`;
    case 'minItems':
      return `must have at least ${String(params.limit)} item${params.limit === 1 ? '' : 's'}`;
    case 'maxItems':
      return `must have at most ${String(params.limit)} items`;
    case 'uniqueItems':
      return 'must not repeat an item';
    case 'format':
      return FORMAT_TEXT[String(params.format)] ?? `must be a valid ${String(params.format)}`;
    case 'pattern':
      return description ? `is not in the expected form (${description})` : 'is not in the expected form';
    default:
      return e.message ?? 'is invalid';
  }
}

function details(errors: ErrorObject[]): FieldDetail[] {
  // A union of literals fails once per literal (const) and once as a whole (anyOf): one message listing the choices instead.
  const choices = new Map<string, unknown[]>();
  for (const e of errors) {
    if (e.keyword === 'const') {
      const field = fieldPath(e.instancePath) || '(root)';
      choices.set(field, [...(choices.get(field) ?? []), (e.params as { allowedValue: unknown }).allowedValue]);
    }
  }
  const seen = new Set<string>();
  const result: FieldDetail[] = [];
  const add = (field: string, message: string) => {
    const key = `${field}:${message}`;
    if (!seen.has(key)) {
      seen.add(key);
      result.push({ field, message });
    }
  };
  for (const e of errors) {
    const missing = e.keyword === 'required' ? (e.params as { missingProperty: string }).missingProperty : undefined;
    const field = fieldPath(e.instancePath, missing) || '(root)';
    const allowed = choices.get(field);
    if (allowed && (e.keyword === 'const' || e.keyword === 'anyOf'))
      add(field, `must be one of: ${allowed.map((v) => JSON.stringify(v)).join(', ')}`);
    else add(field, humanMessage(e));
  }
  return result;
}

/** Maps a schema validation failure of one part of the request to the API's error value. */
export function validationError(errors: ErrorObject[], part: string | undefined): AppError {
  const unknown = unknownNames(errors);
  if (part === 'params') return new AppError('not_found', 'resource not found');
  if (part === 'querystring') {
    if (errors.some((e) => e.instancePath === '/cursor')) {
      return new AppError('malformed_cursor', 'the cursor is malformed; pass meta.next_cursor unchanged');
    }
    if (unknown.length > 0) {
      return new AppError('unknown_parameter', `unknown query parameter: ${unknown.join(', ')}`, {
        details: unknown.map((field) => ({ field, message: 'is not a parameter of this endpoint' })),
      });
    }
    return new AppError('invalid_request', 'invalid query parameter', { details: details(errors) });
  }
  if (part === 'body') {
    if (unknown.length > 0) {
      return new AppError('unknown_field', `unknown field: ${unknown.join(', ')}`, {
        details: unknown.map((field) => ({ field, message: 'is not a field of this request' })),
      });
    }
    return new AppError('validation_failed', 'the request body is not a valid configuration', { details: details(errors) });
  }
  if (
    part === 'headers' &&
    errors.some(
      (e) => e.instancePath === '/idempotency-key' || (e.params as { missingProperty?: string }).missingProperty === 'idempotency-key',
    )
  ) {
    const missing = errors.some((e) => e.keyword === 'required');
    return missing
      ? new AppError('idempotency_key_missing', 'the Idempotency-Key header is required')
      : new AppError('idempotency_key_invalid', 'Idempotency-Key must be 8 to 128 characters of A-Z a-z 0-9 . _ : -');
  }
  return new AppError('invalid_request', 'invalid request', { details: details(errors) });
}
