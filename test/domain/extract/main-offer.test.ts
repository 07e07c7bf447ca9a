import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extractTarget } from '../../../src/domain/extract/extract-target.ts';
import type { Target } from '../../../src/domain/targets.ts';
import { page, priceTarget } from './helpers.ts';

// Whole-page targets on product pages read the main offer: the one shown with
// the product's title, not other products' tiles, shipping, instalments or
// unit prices.

const priceOf = (html: string, fields: Partial<Target> = {}) => {
  const got = extractTarget(page(html), priceTarget(fields));
  return got.ok ? got.value : got.issues[0]?.code;
};
const stockOf = (html: string) => {
  const got = extractTarget(page(html), { id: 's', kind: 'availability', selection: { scope: 'page' } });
  return got.ok ? got.value : got.issues[0]?.code;
};

const RECOMMENDED = `<section><h2>Customers also bought</h2>
<div class="tile"><a href="/a">Kettle A</a><span>24,99 €</span><button>Add to cart</button></div>
<div class="tile"><a href="/b">Kettle B</a><span>34,95 €</span><span>Sold out</span></div></section>`;

test('of several prices on a page, the one next to the product title is the price', () => {
  const html = `<main><div class="product"><h1>Steel kettle</h1><p>(452 reviews)</p><p>99,95 €</p><p>incl. VAT</p></div>${RECOMMENDED}</main>`;
  assert.equal(priceOf(html), 9995);
});

test('where the product title shows two different prices, or the page has no single title, the price stays ambiguous', () => {
  const near = `<div><h1>Steel kettle</h1><p>99,95 €</p></div>${RECOMMENDED}`;
  assert.equal(priceOf(near), 9995);
  assert.equal(priceOf(`<div><h1>Steel kettle</h1><p>excl. VAT 3,56 €</p><p>incl. VAT 4,27 €</p></div>${RECOMMENDED}`), 'price_ambiguous');
  assert.equal(priceOf(`<div><h1>Kettle A</h1><p>24,99 €</p></div><div><h1>Kettle B</h1><p>34,95 €</p></div>`), 'price_ambiguous');
});

test('microdata next to the product title decides over other products’ microdata', () => {
  const offer = (price: string) =>
    `<span itemprop="offers" itemscope><meta itemprop="price" content="${price}"><meta itemprop="priceCurrency" content="EUR"></span>`;
  const html = `<div><h1>Steel kettle</h1>${offer('17.10')}<span class="barred">€ 18,00</span></div><ul><li>Other ${offer('10.45')}</li><li>Another ${offer('27.55')}</li></ul>`;
  assert.equal(priceOf(html), 1710);
});

test('on a whole page, a shipping cost is never the price', () => {
  assert.equal(priceOf('<div><h1>Perfume</h1><p>Out of stock</p><p>Shipping: 10 €</p></div>'), 'price_not_found');
});

test('on a whole page, an instalment or a price per unit is never the price', () => {
  const html = `<div><h1>Goose floss</h1><p>294 元</p><p>3 期 每期$98</p><p>NT$ 49/kg</p><p>NT$ 25 / month</p></div>`;
  assert.equal(priceOf(html, { currency: 'TWD' }), 29400);
});

test('an amount written as a lower bound for an offer ("$590起") is not a price', () => {
  assert.equal(priceOf('<div><h1>Goose floss</h1><p>2320 元</p><p>消費滿額享$590起</p></div>', { currency: 'TWD' }), 232000);
});

test('on a whole page, a free-shipping threshold and a home-delivery fee written in Chinese are not the price', () => {
  const html = '<div><h1>Goose floss</h1><p>特價 294 元</p><p>運 費 單店購物車滿 490 元(含)以上免運費，未滿者自付運費 宅配 80 元</p></div>';
  assert.equal(priceOf(html, { currency: 'TWD' }), 29400);
});

test('on a whole page, a table row labelled as shipping lists delivery options, not the price', () => {
  const row = (label: string, options: string) => `<table><tr><td><b>${label}</b></td><td>${options}</td></tr></table>`;
  const tw = row('運　　費', '宅配 <strong>80</strong> 元<br>7-11取貨付款 <strong>80</strong> 元');
  assert.equal(priceOf(`<div><h1>Goose floss</h1><p>2320 元</p>${tw}</div>`, { currency: 'TWD' }), 232000);
  const en = row('Shipping costs', 'Standard 4,95 €<br>Express 9,95 €');
  assert.equal(priceOf(`<div><h1>Steel kettle</h1><p>99,95 €</p>${en}</div>`), 9995);
});

test('a structured-data offer priced at zero is a placeholder: neither its price nor its stock counts', () => {
  const html = `<script type="application/ld+json">{"@type":"Product","offers":{"@type":"Offer","price":"0","priceCurrency":"EUR","availability":"https://schema.org/OutOfStock"}}</script>
<div><h1>Perfume</h1><p>49,00 €</p><button>Add to cart</button></div>`;
  assert.equal(priceOf(html), 4900);
  assert.equal(stockOf(html), 'in_stock');
});

test('a JSON-LD block with trailing commas is read with them dropped', () => {
  const block = `<script type="application/ld+json">{"@type":"Product","offers":{"@type":"Offer","price":"17.10","priceCurrency":"EUR",},}</script>`;
  assert.equal(priceOf(`${block}<div><h1>Kettle</h1><p>18,00 €</p><p>21,00 €</p></div>`), 1710);
});

test('the stock wording next to the product title decides over other products’ wording', () => {
  assert.equal(
    stockOf(`<main><div><h1>Steel kettle</h1><p>99,95 €</p><button>Add to cart</button></div>${RECOMMENDED}</main>`),
    'in_stock',
  );
  assert.equal(stockOf(`<main><div><h1>Steel kettle</h1><p>Currently unavailable</p></div>${RECOMMENDED}</main>`), 'out_of_stock');
});

test('a buy control holding both buy and unavailable labels (switched by style) says nothing about stock', () => {
  const control = '<a class="add-to-basket"><span>Do koszyka</span> <span>Produkt niedostępny</span></a>';
  assert.equal(stockOf(`<div><h1>WC frame</h1><p>997 zł</p>${control}<p>W magazynie: na stanie</p></div>`), 'in_stock');
  assert.equal(stockOf(`<div><h1>WC frame</h1><p>997 zł</p>${control}</div>`), 'availability_unknown');
});

test('a buy control whose two labels are one phrase each, buy and sold out, says nothing about stock', () => {
  const control = '<button><span>Add to cart</span> <span>Sold out</span></button>';
  assert.equal(stockOf(`<div><h1>Kettle</h1><p>19.99 €</p>${control}<p>Only 3 left in stock</p></div>`), 'in_stock');
  assert.equal(stockOf(`<div><h1>Kettle</h1><p>19.99 €</p>${control}</div>`), 'availability_unknown');
});

test('add-to-cart wording in Slovak, Chinese, Korean and Hebrew suggests the item is in stock', () => {
  for (const button of ['Do košíka', '加入購物車', '구매하기', 'הוסף לסל']) {
    assert.equal(stockOf(`<div><h1>Item</h1><button>${button}</button></div>`), 'in_stock', button);
  }
});
