import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extractTarget } from '../../../src/domain/extract/extract-target.ts';
import { stockFromText } from '../../../src/domain/extract/stock-text.ts';
import type { Target } from '../../../src/domain/targets.ts';
import { page, selector } from './helpers.ts';

const stock = (fields: Partial<Target> = {}): Target => ({ id: 's', kind: 'availability', selection: { scope: 'page' }, ...fields });
const valueOf = (html: string, fields: Partial<Target> = {}) => extractTarget(page(html), stock(fields)).value;

test('schema.org availability in JSON-LD decides before any wording', () => {
  const html = `<script type="application/ld+json">{"@type":"Product","offers":{"availability":"https://schema.org/OutOfStock"}}</script><button>Add to cart</button><p>In stock</p>`;
  assert.equal(valueOf(html), 'out_of_stock');
});

test('a classified ad whose microdata availability says NOT SOLD is in stock, SOLD is out of stock', () => {
  assert.equal(valueOf('<div itemscope><span itemprop="availability">\n  NOT SOLD\n</span></div>'), 'in_stock');
  assert.equal(valueOf('<div itemscope><span itemprop="availability">Sold</span></div>'), 'out_of_stock');
});

test('microdata availability is read from link href and meta content', () => {
  assert.equal(valueOf('<div itemscope><link itemprop="availability" href="https://schema.org/InStock"></div>'), 'in_stock');
  assert.equal(valueOf('<div itemscope><meta itemprop="availability" content="OutOfStock"></div>'), 'out_of_stock');
});

test('a product with several offers is in stock when any offer is', () => {
  const html = `<script type="application/ld+json">{"offers":[{"availability":"OutOfStock"},{"availability":"InStock"}]}</script>`;
  assert.equal(valueOf(html), 'in_stock');
});

test('pre-orders and back-orders count as out of stock', () => {
  assert.equal(valueOf('<meta itemprop="availability" content="https://schema.org/PreOrder">'), 'out_of_stock');
  assert.equal(valueOf('<meta itemprop="availability" content="BackOrder">'), 'out_of_stock');
});

test('out-of-stock wording is recognised in many languages', () => {
  for (const phrase of ['Sold out', 'Ausverkauft', 'Rupture de stock', 'Agotado', 'Niet op voorraad', '品切れ']) {
    assert.equal(stockFromText(`Kettle — ${phrase}`), 'out_of_stock', phrase);
  }
});

test('in-stock wording inside an out-of-stock phrase does not count', () => {
  assert.equal(stockFromText('Currently not available'), 'out_of_stock');
  assert.equal(stockFromText('Article indisponible'), 'out_of_stock');
});

test('phrases match whole words: "10 in stock" is not "0 in stock"', () => {
  assert.equal(stockFromText('Only 10 in stock'), 'in_stock');
  assert.equal(stockFromText('0 in stock'), 'out_of_stock');
});

test('an add-to-cart button does not outweigh an out-of-stock statement', () => {
  assert.equal(stockFromText('Add to cart\nOut of stock'), 'out_of_stock');
});

test('an in-stock statement outweighs a "notify me" link', () => {
  assert.equal(stockFromText('In stock\nNotify me about offers'), 'in_stock');
});

test('contradicting statements of equal weight leave the stock unknown', () => {
  const result = extractTarget(page('<p>In stock</p><p>Out of stock</p>'), stock());
  assert.equal(result.issues[0]!.code, 'availability_unknown');
});

test('a page that says nothing about stock is availability_unknown', () => {
  const result = extractTarget(page('<p>£19.95</p>'), stock());
  assert.deepEqual([result.ok, result.value, result.issues[0]!.code], [false, null, 'availability_unknown']);
});

test('a selector scope reads only the wording of the selected element', () => {
  const html = '<p id="main">In stock</p><aside><p>Sold out</p></aside>';
  assert.equal(valueOf(html, { selection: selector('#main') }), 'in_stock');
  assert.equal(extractTarget(page(html), stock()).ok, false);
});

test('the display reads In stock or Out of stock', () => {
  assert.equal(extractTarget(page('<p>Sold out</p>'), stock()).display, 'Out of stock');
});
