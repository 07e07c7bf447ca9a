import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isObservedValue, normaliseLinks, normaliseText, valueOfKind, valuesEqual } from '../../src/domain/observed-value.ts';

test('text values compare after whitespace normalisation', () => {
  assert.equal(valuesEqual('text', '  In stock:\n\t3 left ', 'In stock: 3 left'), true);
});

test('no-break and other Unicode spaces count as whitespace', () => {
  assert.equal(normaliseText('29,00\u00a0€\u2009now'), '29,00 € now');
});

test('composed and decomposed accents are the same text', () => {
  assert.equal(valuesEqual('text', 'Caf\u00e9', 'Cafe\u0301'), true);
});

test('text comparison is case-sensitive', () => {
  assert.equal(valuesEqual('text', 'Sold out', 'sold out'), false);
});

test('prices compare as integer minor units', () => {
  assert.equal(valuesEqual('price', 2900, 2900), true);
  assert.equal(valuesEqual('price', 2900, 2899), false);
});

test('availability values compare exactly', () => {
  assert.equal(valuesEqual('availability', 'in_stock', 'in_stock'), true);
  assert.equal(valuesEqual('availability', 'in_stock', 'out_of_stock'), false);
});

test('links compare as sets, ignoring order and duplicates', () => {
  const a = ['https://a.example/2', 'https://a.example/1'];
  const b = ['https://a.example/1', 'https://a.example/2', 'https://a.example/1'];
  assert.equal(valuesEqual('links', a, b), true);
});

test('a link added or removed makes link values differ', () => {
  assert.equal(valuesEqual('links', ['https://a.example/1'], ['https://a.example/1', 'https://a.example/2']), false);
  assert.equal(valuesEqual('links', ['https://a.example/1'], []), false);
});

test('normalised links are sorted and distinct', () => {
  assert.deepEqual(normaliseLinks(['https://b.example/', 'https://a.example/', 'https://b.example/']), [
    'https://a.example/',
    'https://b.example/',
  ]);
});

test('prices must be non-negative safe integers', () => {
  assert.equal(isObservedValue('price', 2900), true);
  assert.equal(isObservedValue('price', 29.5), false);
  assert.equal(isObservedValue('price', -1), false);
  assert.equal(isObservedValue('price', '2900'), false);
});

test('only the two stock states are availability values', () => {
  assert.equal(isObservedValue('availability', 'out_of_stock'), true);
  assert.equal(isObservedValue('availability', 'unknown'), false);
});

test('links values are arrays of strings', () => {
  assert.equal(isObservedValue('links', ['https://a.example/']), true);
  assert.equal(isObservedValue('links', [1]), false);
  assert.equal(isObservedValue('links', 'https://a.example/'), false);
});

test('a value of the wrong shape for its kind is an error, not a change', () => {
  assert.throws(() => valueOfKind('price', 'in_stock'), TypeError);
  assert.throws(() => valuesEqual('text', 2900, 'x'), TypeError);
});
