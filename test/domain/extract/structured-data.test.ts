import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withoutTrailingCommas } from '../../../src/domain/extract/structured-data.ts';

test('mending JSON-LD drops a comma before a closing bracket, whatever whitespace between', () => {
  assert.equal(withoutTrailingCommas('{"a":[1,2,],"b":{"c":3 ,\n },}'), '{"a":[1,2],"b":{"c":3 \n }}');
});

test('mending JSON-LD keeps commas inside strings, escaped quotes included', () => {
  const text = '{"name":"Kettle, }","note":"say \\", ]","list":["a, ]",],}';
  assert.equal(withoutTrailingCommas(text), '{"name":"Kettle, }","note":"say \\", ]","list":["a, ]"]}');
  assert.deepEqual(JSON.parse(withoutTrailingCommas(text)), { name: 'Kettle, }', note: 'say ", ]', list: ['a, ]'] });
});
