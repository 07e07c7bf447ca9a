import { Type, type TSchema } from '@sinclair/typebox';

export const ErrorEnvelopeSchema = Type.Object(
  {
    error: Type.Object({
      code: Type.String({ description: 'stable machine-readable code, e.g. insufficient_scope' }),
      message: Type.String(),
      request_id: Type.String({ format: 'uuid', description: 'equals the X-Request-Id header; quote it to support' }),
      details: Type.Optional(
        Type.Array(Type.Object({ field: Type.String(), message: Type.String() }), { description: 'per-field problems on 400/422' }),
      ),
    }),
  },
  { $id: 'Error' },
);

/** `{data: T}` */
export function Data<T extends TSchema>(schema: T) {
  return Type.Object({ data: schema });
}

/** `{data: [T], meta: {next_cursor}}` */
export function ListOf<T extends TSchema>(schema: T) {
  return Type.Object({
    data: Type.Array(schema),
    meta: Type.Object({
      next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'pass unchanged with the same filters; null at the end' }),
    }),
  });
}

/** The query declaration of an operation that takes no query parameters: any one is 400 unknown_parameter. */
export const NoQuery = Type.Object({}, { additionalProperties: false });

/** Cursors are short; a longer one cannot be ours. */
export const MAX_CURSOR_LENGTH = 512;

/** Idempotency-Key values: 8–128 characters from a URL- and header-safe set. */
export const IDEMPOTENCY_KEY_PATTERN = '^[A-Za-z0-9._:-]{8,128}$';

export const Timestamp = Type.String({ format: 'date-time' });
export const NullableTimestamp = Type.Union([Timestamp, Type.Null()]);
