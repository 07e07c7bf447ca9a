import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extractFromDocument, outlineDocument, readTextDocument } from '../../../src/domain/extract/document.ts';
import { MAX_JSON_DEPTH } from '../../../src/domain/extract/json-document.ts';
import { JSON_PATH_LIMITS, jsonPathProblem } from '../../../src/domain/extract/json-path.ts';
import { validateTarget } from '../../../src/domain/target-rules.ts';
import type { Target } from '../../../src/domain/targets.ts';

const URL_ = 'https://api.shop.example/items/42';

function jsonDocument(value: unknown) {
  return readTextDocument({ bytes: new TextEncoder().encode(JSON.stringify(value)), charset: null, format: 'json' }, URL_);
}

function at(path: string, fields: Partial<Target> = {}): Target {
  return { id: 't', kind: 'text', selection: { scope: 'json', path }, ...fields };
}

const ITEM = {
  name: 'Kettle “Ω”',
  offers: [{ price: 24.99, currency: 'EUR', in_stock: true, url: 'https://shop.example/k' }],
  price_text: '€ 1.299,50',
  availability: 'https://schema.org/OutOfStock',
  links: ['https://shop.example/a', 'https://shop.example/b#top', 'not a url', '/relative'],
  nested: { deep: [[{ x: 1 }]] },
};

test('a JSON number is a price in the target currency, read exactly: 24.99 is 2499', () => {
  const result = extractFromDocument(jsonDocument(ITEM), at('$.offers[0].price', { kind: 'price', currency: 'EUR' }));
  assert.deepEqual([result.ok, result.value, result.display], [true, 2499, '24.99 EUR']);
});

test('a JSON price with more decimals than the currency has is price_ambiguous, never rounded', () => {
  const result = extractFromDocument(jsonDocument({ p: 24.999 }), at('$.p', { kind: 'price', currency: 'EUR' }));
  assert.deepEqual([result.value, result.issues[0]?.code], [null, 'price_ambiguous']);
});

test('a JSON price in exponent form is read from its digits (1e2 is 100.00, 1.5e-1 is 0.15)', () => {
  const doc = jsonDocument({ a: 1e2, b: 1.5e-1, c: 12345678901.5 });
  assert.equal(extractFromDocument(doc, at('$.a', { kind: 'price', currency: 'USD' })).value, 10000);
  assert.equal(extractFromDocument(doc, at('$.b', { kind: 'price', currency: 'USD' })).value, 15);
  assert.equal(extractFromDocument(doc, at('$.c', { kind: 'price', currency: 'USD' })).value, 1234567890150);
});

test('a JSON string price goes through the price reader, and another currency in it is currency_mismatch', () => {
  const doc = jsonDocument(ITEM);
  const euro = extractFromDocument(doc, at('$.price_text', { kind: 'price', currency: 'EUR', decimal: ',' }));
  assert.deepEqual([euro.ok, euro.value], [true, 129950]);
  const dollars = extractFromDocument(doc, at('$.price_text', { kind: 'price', currency: 'USD' }));
  assert.equal(dollars.issues[0]?.code, 'currency_mismatch');
});

test('a boolean, null or object is no price: price_not_found', () => {
  const doc = jsonDocument(ITEM);
  for (const path of ['$.offers[0].in_stock', '$.nested']) {
    assert.equal(extractFromDocument(doc, at(path, { kind: 'price', currency: 'EUR' })).issues[0]?.code, 'price_not_found', path);
  }
});

test('a text target is the value as canonical JSON text, keys sorted, unicode kept', () => {
  const doc = jsonDocument(ITEM);
  assert.equal(extractFromDocument(doc, at('$.name')).value, '"Kettle “Ω”"');
  assert.equal(
    extractFromDocument(doc, at('$.offers[0]')).value,
    '{"currency":"EUR","in_stock":true,"price":24.99,"url":"https://shop.example/k"}',
  );
});

test('availability: a boolean, or a schema.org or common stock string', () => {
  const doc = jsonDocument(ITEM);
  assert.equal(extractFromDocument(doc, at('$.offers[0].in_stock', { kind: 'availability' })).value, 'in_stock');
  assert.equal(extractFromDocument(doc, at('$.availability', { kind: 'availability' })).value, 'out_of_stock');
  assert.equal(extractFromDocument(jsonDocument({ s: 'Sold out' }), at('$.s', { kind: 'availability' })).value, 'out_of_stock');
  assert.equal(extractFromDocument(doc, at('$.offers[0].price', { kind: 'availability' })).issues[0]?.code, 'availability_unknown');
});

test('links are the http(s) URL strings the path selects, fragments dropped, sorted; several values allowed', () => {
  const doc = jsonDocument(ITEM);
  const result = extractFromDocument(doc, at('$.links[*]', { kind: 'links' }));
  assert.deepEqual(result.value, ['https://shop.example/a', 'https://shop.example/b']);
  assert.deepEqual(extractFromDocument(doc, at('$..url', { kind: 'links' })).value, ['https://shop.example/k']);
});

test('a path selecting no value is selector_missing, several values (not links) selector_ambiguous', () => {
  const doc = jsonDocument(ITEM);
  assert.equal(extractFromDocument(doc, at('$.nothing')).issues[0]?.code, 'selector_missing');
  assert.equal(extractFromDocument(doc, at('$.links[*]')).issues[0]?.code, 'selector_ambiguous');
});

test('a page selection on a JSON document is the whole document; a CSS selector is selector_missing', () => {
  const doc = jsonDocument({ b: 1, a: 2 });
  assert.equal(extractFromDocument(doc, { id: 't', kind: 'text', selection: { scope: 'page' } }).value, '{"a":2,"b":1}');
  const css = extractFromDocument(doc, { id: 't', kind: 'text', selection: { scope: 'selector', selector: '#a' } });
  assert.equal(css.issues[0]?.code, 'selector_missing');
});

test('a json selection on an HTML page is selector_missing', () => {
  const html = readTextDocument('<p id="a">1</p>', URL_);
  assert.equal(extractFromDocument(html, at('$.a')).issues[0]?.code, 'selector_missing');
});

test('a document that is not JSON is json_invalid for every target and refuses a preview', () => {
  const doc = readTextDocument({ bytes: new TextEncoder().encode('{"a": 1,'), charset: null, format: 'json' }, URL_);
  assert.equal(extractFromDocument(doc, at('$.a')).issues[0]?.code, 'json_invalid');
  assert.equal(outlineDocument(doc).unreadable?.code, 'json_invalid');
});

test(`a JSON document nested more than ${MAX_JSON_DEPTH} levels deep is json_invalid, read without recursion`, () => {
  const deep = '['.repeat(100_000) + ']'.repeat(100_000);
  const doc = readTextDocument({ bytes: new TextEncoder().encode(deep), charset: null, format: 'json' }, URL_);
  assert.match(extractFromDocument(doc, at('$')).issues[0]?.message ?? '', new RegExp(`more than ${MAX_JSON_DEPTH} levels`));
  const brackets = readTextDocument(
    { bytes: new TextEncoder().encode(JSON.stringify({ s: '['.repeat(1000) })), charset: null, format: 'json' },
    URL_,
  );
  assert.equal(extractFromDocument(brackets, at('$.s')).ok, true, 'brackets inside strings are no nesting');
});

test('the preview lists the paths with sample values and hints; arrays summarised', () => {
  const offers = Array.from({ length: 50 }, (_, i) => ({ price: i + 0.5 }));
  const { elements } = outlineDocument(jsonDocument({ ...ITEM, offers, 'odd key': 'x' }));
  const byPath = new Map(elements.map((e) => [e.selector, e]));
  assert.deepEqual(byPath.get('$.offers'), { selector: '$.offers', tag: 'array', text: '50 items', hints: [] });
  assert.deepEqual(byPath.get('$.offers[0].price'), { selector: '$.offers[0].price', tag: 'number', text: '0.5', hints: ['price'] });
  assert.equal(byPath.has('$.offers[3].price'), false, 'only the first items of an array are listed');
  assert.equal(byPath.get("$['odd key']")?.text, 'x');
  assert.deepEqual(byPath.get('$.links[0]')?.hints, ['links']);
  for (const element of elements) assert.equal(jsonPathProblem(element.selector), null, element.selector);
});

test('a path that is not RFC 9535 JSONPath is selector_invalid, said in words', () => {
  for (const path of ['$.a[', 'a.b', '$..', '$[?@.a ==]']) {
    const problem = jsonPathProblem(path);
    assert.equal(problem?.code, 'selector_invalid', path);
    assert.doesNotMatch(problem?.message ?? '', /\[A-Z/u, 'no character classes of the parser');
  }
  assert.match(jsonPathProblem('$.a[')?.message ?? '', /ends too early/u);
});

test(`match() and search(), more than ${JSON_PATH_LIMITS.descendantSegments} ".." segments and filters nested ${JSON_PATH_LIMITS.filterNesting + 1} deep are selector_too_costly`, () => {
  for (const path of ['$[?match(@.a, "a.*")]', '$[?search(@.a, "(a+)+$")]', '$..a..b..c..d', '$[?@[?@[?@.a]]]']) {
    assert.equal(jsonPathProblem(path)?.code, 'selector_too_costly', path);
  }
  assert.equal(jsonPathProblem('$.offers[?@.price < 30 && length(@.name) > 2].price'), null);
});

test('a target with an invalid path is refused at validation (selection.path)', () => {
  assert.deepEqual(
    validateTarget(at('$.a['), 0).map((d) => d.field),
    ['targets[0].selection.path'],
  );
});
