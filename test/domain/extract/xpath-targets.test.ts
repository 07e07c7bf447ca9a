import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extractTarget } from '../../../src/domain/extract/extract-target.ts';
import { XPATH_LIMITS, xpathProblem } from '../../../src/domain/extract/xpath.ts';
import { validateTarget } from '../../../src/domain/target-rules.ts';
import type { Target } from '../../../src/domain/targets.ts';
import { page } from './helpers.ts';

const SHOP = page(`<!doctype html><html><head><meta property="product:price:amount" content="19.90"></head><body>
<h1>Kettle</h1>
<table><tr><th>Size</th><td>1.7 l</td></tr><tr><th>Price</th><td>24,99 €</td></tr><tr><th>Stock</th><td>Sold out</td></tr></table>
<ul id="news"><li><a href="/n/1">One</a></li><li><a href="https://elsewhere.example/n/2">Two</a></li></ul>
</body></html>`);

function by(expression: string, fields: Partial<Target> = {}): Target {
  return { id: 't', kind: 'text', selection: { scope: 'xpath', expression }, ...fields };
}

test("an element reachable only by its neighbour's text is selected by XPath and read as CSS-selected ones are", () => {
  const price = extractTarget(SHOP, by("//th[text()='Price']/following-sibling::td", { kind: 'price', currency: 'EUR' }));
  assert.deepEqual([price.ok, price.value], [true, 2499]);
  const stock = extractTarget(SHOP, by("//th[.='Stock']/../td", { kind: 'availability' }));
  assert.equal(stock.value, 'out_of_stock');
  assert.equal(extractTarget(SHOP, by('/html/body/h1')).value, 'Kettle');
});

test('a text node or an attribute selected is read as its text', () => {
  assert.equal(extractTarget(SHOP, by("//th[.='Size']/following-sibling::td/text()")).value, '1.7 l');
  const amount = extractTarget(SHOP, by("//meta[@property='product:price:amount']/@content", { kind: 'price', currency: 'EUR' }));
  assert.deepEqual([amount.ok, amount.value], [true, 1990]);
});

test('links by XPath: every link below the selected elements, resolved against the page', () => {
  const links = extractTarget(SHOP, by("//ul[@id='news']/li", { kind: 'links' }));
  assert.deepEqual(links.value, ['https://elsewhere.example/n/2', 'https://shop.example/n/1']);
});

test('an expression matching nothing is selector_missing, several elements (not links) selector_ambiguous', () => {
  assert.equal(extractTarget(SHOP, by('//video')).issues[0]?.code, 'selector_missing');
  assert.equal(extractTarget(SHOP, by('//td')).issues[0]?.code, 'selector_ambiguous');
});

test('an expression computing a value instead of selecting nodes is selector_invalid', () => {
  assert.equal(extractTarget(SHOP, by('count(//td)')).issues[0]?.code, 'selector_invalid');
});

test('a page of several top-level elements is read under an html root, as a browser builds it', () => {
  const fragment = page('<p id="a">first</p><p id="b">second</p>');
  assert.equal(extractTarget(fragment, by("/html/p[@id='b']")).value, 'second');
});

test('a json selection on a page is selector_missing; an XPath selection is not read on a JSON document', () => {
  assert.equal(
    extractTarget(SHOP, { id: 't', kind: 'text', selection: { scope: 'json', path: '$.a' } }).issues[0]?.code,
    'selector_missing',
  );
});

test('XPath that does not parse, document(), extension functions and variables are selector_invalid', () => {
  for (const expression of [
    '//a[',
    '//a[@href=',
    "document('https://x.example/')",
    'ext:fetch(1)',
    '//a[@href=$x]',
    'unparsed-entity-uri("x")',
  ]) {
    assert.equal(xpathProblem(expression)?.code, 'selector_invalid', expression);
  }
  assert.match(xpathProblem("document('x')")?.message ?? '', /document\(\) is not an XPath 1\.0 core function/u);
});

test(`more than ${XPATH_LIMITS.scanningSteps} scanning steps, ${XPATH_LIMITS.alternatives} alternatives or predicates nested ${XPATH_LIMITS.predicateNesting} deep are selector_too_costly`, () => {
  for (const expression of [
    '//a//b//c//d',
    '//a/following::b/preceding::c/descendant::d',
    '//a/following-sibling::b//c/preceding-sibling::d',
    'a|b|c|d|e|f',
    '//a[b[c[d]]]',
  ]) {
    assert.equal(xpathProblem(expression)?.code, 'selector_too_costly', expression);
  }
  for (const expression of [
    "//th[text()='Price']/following-sibling::td",
    '//a//b//c',
    '//a[b[c]]',
    'a|b|c|d|e',
    '/html/body/div[2]/p[1]',
  ]) {
    assert.equal(xpathProblem(expression), null, expression);
  }
});

test('a target with an invalid expression is refused at validation (selection.expression)', () => {
  assert.deepEqual(
    validateTarget(by('//a['), 0).map((d) => d.field),
    ['targets[0].selection.expression'],
  );
});
