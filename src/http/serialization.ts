import fastJsonStringify from 'fast-json-stringify';
import type { FastifySerializerCompiler } from 'fastify';

// A response schema's serializer is built once per process. Building one
// (fast-json-stringify writes and compiles a function, with an Ajv of its own
// for anyOf and if/then) was about half of building the application, and a
// process that builds it again gets the same schemas: the test suite builds it
// hundreds of times (docs/decisions/0075). Keyed by the schema's JSON, as route
// modules make their schema objects anew at each registration; what fastify
// would pass besides (shared schemas, serializer options) pagewatch does not use.
const serializers = new Map<string, (data: unknown) => string>();

export const serializerCompiler: FastifySerializerCompiler<unknown> = ({ schema }) => {
  const key = JSON.stringify(schema);
  let serialize = serializers.get(key);
  if (!serialize) {
    serialize = fastJsonStringify(schema as Parameters<typeof fastJsonStringify>[0]);
    serializers.set(key, serialize);
  }
  return serialize;
};
