import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { selectElements } from '../../../src/domain/extract/select.ts';
import { listElements, MAX_PREVIEW_ELEMENTS } from '../../../src/domain/extract/preview-elements.ts';
import { cssIdent } from '../../../src/domain/extract/unique-selector.ts';
import { page } from './helpers.ts';

const CORPUS = resolve(import.meta.dirname, '../../corpora/availability');

const PRODUCT = `<html><body>
  <header><nav><a href="/">Home</a> <a href="/shop">Shop</a> <a href="/help">Help</a></nav></header>
  <h1 class="title">Steel kettle</h1>
  <div class="price-box"><span class="price">€ 29,90</span></div>
  <p data-testid="stock">In stock</p>
  <div class="card"><span class="price">€ 9,90</span></div>
  <div class="card"><span class="price">€ 9,90</span></div>
  <span itemprop="price" content="29.90">29,90</span>
  <div id="weird:id.1">x</div>
</body></html>`;

function assertEverySelectorUnique(html: string): void {
  const parsed = page(html);
  for (const element of listElements(parsed)) {
    const selected = selectElements(parsed, element.selector);
    assert.ok(selected.ok, element.selector);
    assert.equal(selected.elements.length, 1, `${element.selector} should match one element`);
    assert.equal(selected.elements[0]!.name, element.tag);
  }
}

test('every listed selector matches exactly one element of the page', () => {
  assertEverySelectorUnique(PRODUCT);
});

test('every listed selector matches exactly one element on the corpus pages', () => {
  // CI checks the corpus pages: their absence fails, it is not skipped
  if (!existsSync(CORPUS)) {
    throw new Error(`corpus pages not found at ${CORPUS}: test/corpora is part of the repository`);
  }
  for (const file of readdirSync(CORPUS).filter((f) => f.endsWith('.html'))) {
    assertEverySelectorUnique(readFileSync(join(CORPUS, file), 'utf8'));
  }
});

test('ids, test ids and itemprops are preferred to class and positional paths', () => {
  const selectors = listElements(page(PRODUCT)).map((e) => e.selector);
  assert.ok(selectors.includes('[data-testid="stock"]'));
  assert.ok(selectors.includes('[itemprop="price"]'));
  assert.ok(selectors.includes(`#${cssIdent('weird:id.1')}`));
  assert.ok(selectors.includes('h1.title'));
});

test('a repeated class gets a positional path that still matches one element', () => {
  const cards = listElements(page(PRODUCT)).filter((e) => e.text === '€ 9,90');
  assert.equal(cards.length, 2);
  assert.notEqual(cards[0]!.selector, cards[1]!.selector);
});

test('hints mark prices, stock messages, headings and link lists', () => {
  const byText = new Map(listElements(page(PRODUCT)).map((e) => [e.text, e.hints]));
  assert.deepEqual(byText.get('€ 29,90'), ['price']);
  assert.deepEqual(byText.get('In stock'), ['availability']);
  assert.deepEqual(byText.get('Steel kettle'), ['heading']);
  assert.deepEqual(byText.get('Home Shop Help'), ['links']);
});

test('element texts are at most 200 characters', () => {
  const elements = listElements(page(`<h1>${'long '.repeat(100)}</h1>`));
  assert.equal(elements[0]!.text.length, 200);
});

test('at most 200 elements are listed, in page order', () => {
  const html = Array.from({ length: 300 }, (_, i) => `<h2>Heading ${i}</h2>`).join('');
  const elements = listElements(page(`<html><body>${html}</body></html>`));
  assert.equal(elements.length, MAX_PREVIEW_ELEMENTS);
  assert.equal(elements[0]!.text, 'Heading 0');
});

test('nothing from scripts, styles or hidden elements is listed', () => {
  const elements = listElements(page('<body><h2 hidden>secret</h2><template><h2>tpl</h2></template><h2>shown</h2></body>'));
  assert.deepEqual(
    elements.map((e) => e.text),
    ['shown'],
  );
});

test('the main offer leads the list: the price and stock elements next to the product title come first, the rest in page order', () => {
  const html = `<body><header><a href="/cart">Cart</a> <span class="cart-total">€ 120,00</span></header>
  <div class="product"><h1>Steel kettle</h1><span class="now">€ 29,90</span><p class="stock">In stock</p></div>
  <section><h2>Also bought</h2><div class="tile"><span>€ 9,90</span><span>Sold out</span></div></section></body>`;
  const listed = listElements(page(html)).map((e) => e.text);
  assert.deepEqual(listed.slice(0, 2), ['€ 29,90', 'In stock']);
  assert.ok(listed.indexOf('€ 120,00') < listed.indexOf('Steel kettle'));
});
