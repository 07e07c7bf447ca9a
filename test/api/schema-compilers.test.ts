import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Type } from '@sinclair/typebox';
import { serializerCompiler } from '../../src/http/serialization.ts';
import { validatorCompiler } from '../../src/http/validation.ts';

// Request and response schemas are compiled once per process
// (src/http/serialization.ts): an application built again, with its schema
// objects made anew, uses what the first build compiled.

const route = { method: 'GET', url: '/things' };
const Thing = () => Type.Object({ id: Type.String(), count: Type.Integer() });

test('a response schema made anew is serialized by the function compiled for the first one', () => {
  const first = serializerCompiler({ ...route, httpStatus: '200', schema: Thing() });
  const again = serializerCompiler({ ...route, httpStatus: '200', schema: Thing() });
  assert.equal(again, first);
  assert.equal(first({ id: 'a', count: 2, secret: 'x' }), '{"id":"a","count":2}');
});

test('response schemas that differ are serialized apart', () => {
  const thing = serializerCompiler({ ...route, httpStatus: '200', schema: Thing() });
  const other = serializerCompiler({ ...route, httpStatus: '200', schema: Type.Object({ id: Type.String() }) });
  assert.notEqual(other, thing);
  assert.equal(other({ id: 'a', count: 2 }), '{"id":"a"}');
});

test('a request schema made anew is validated by the function compiled for the first one', () => {
  const first = validatorCompiler({ ...route, httpPart: 'body', schema: Thing() });
  assert.equal(validatorCompiler({ ...route, httpPart: 'body', schema: Thing() }), first);
});

test('the same schema in a body and in a query string is compiled apart: text is coerced, a body is not', () => {
  const body = validatorCompiler({ ...route, httpPart: 'body', schema: Thing() });
  const query = validatorCompiler({ ...route, httpPart: 'querystring', schema: Thing() });
  assert.notEqual(query, body);
  assert.equal(body({ id: 'a', count: '2' }), false);
  assert.equal(query({ id: 'a', count: '2' }), true);
});
