import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extractTarget } from '../../../src/domain/extract/extract-target.ts';
import { page, priceTarget, selector } from './helpers.ts';

const jsonLd = (data: unknown) => `<script type="application/ld+json">${JSON.stringify(data)}</script>`;

test('a page-scope price comes from JSON-LD offers first', () => {
  const html = `${jsonLd({ '@type': 'Product', offers: { '@type': 'Offer', price: '1299.00', priceCurrency: 'EUR' } })}<p>Was €1.499,00</p><p>€ 9,99 shipping</p>`;
  const result = extractTarget(page(html), priceTarget());
  assert.deepEqual([result.ok, result.value, result.display], [true, 129900, '1,299.00 EUR']);
});

test('JSON-LD offers in an array, inside @graph, and in a priceSpecification are read', () => {
  const graph = {
    '@graph': [{ '@type': 'Product', offers: [{ '@type': 'Offer', priceSpecification: { price: 12.5, priceCurrency: 'USD' } }] }],
  };
  assert.equal(extractTarget(page(jsonLd(graph)), priceTarget({ currency: 'USD' })).value, 1250);
});

test('an AggregateOffer stands for its nested offers with its lowPrice', () => {
  const data = {
    '@type': 'Product',
    offers: { '@type': 'AggregateOffer', lowPrice: 10, highPrice: 20, priceCurrency: 'GBP', offers: [{ price: 10 }, { price: 20 }] },
  };
  assert.equal(extractTarget(page(jsonLd(data)), priceTarget({ currency: 'GBP' })).value, 1000);
});

test('a broken JSON-LD block is skipped and the next one read', () => {
  const html = `<script type="application/ld+json">xx {"offers": {"price": 1}}</script>${jsonLd({ offers: { price: 23.5, priceCurrency: 'AUD' } })}`;
  assert.equal(extractTarget(page(html), priceTarget({ currency: 'AUD' })).value, 2350);
});

test('microdata prices use their content attribute and the scope currency', () => {
  const html = `<div itemscope itemtype="https://schema.org/Offer"><span itemprop="price" content="155.55">$155.55</span><meta itemprop="priceCurrency" content="AUD"></div>`;
  assert.equal(extractTarget(page(html), priceTarget({ currency: 'AUD' })).value, 15555);
});

test('Open Graph product price tags are read', () => {
  const html = '<head><meta property="product:price:amount" content="49.90"><meta property="product:price:currency" content="CHF"></head>';
  assert.equal(extractTarget(page(html), priceTarget({ currency: 'CHF' })).value, 4990);
});

test('without structured data a single visible price is the value', () => {
  assert.equal(extractTarget(page("<p>CHF 1'299.–</p>"), priceTarget({ currency: 'CHF' })).value, 129900);
});

test('several different visible prices on a page are price_ambiguous', () => {
  const result = extractTarget(page('<p>€ 10,00</p><p>€ 12,00</p>'), priceTarget());
  assert.equal(result.issues[0]?.code, 'price_ambiguous');
  assert.equal(result.value, null);
});

test('the same price shown twice is not ambiguous', () => {
  assert.equal(extractTarget(page('<p>€ 10,00</p><p>10,00 €</p>'), priceTarget()).value, 1000);
});

test('a struck-through old price is not a candidate', () => {
  assert.equal(extractTarget(page('<p><del>€ 12,00</del> € 10,00</p>'), priceTarget()).value, 1000);
});

test('a price in another currency than the target is currency_mismatch', () => {
  const result = extractTarget(page('<p>$12.00</p>'), priceTarget({ currency: 'EUR' }));
  assert.equal(result.issues[0]?.code, 'currency_mismatch');
});

test('an ambiguous sign counts for every currency it may stand for', () => {
  assert.equal(extractTarget(page('<p>$12.00</p>'), priceTarget({ currency: 'CAD' })).value, 1200);
});

test('a page without a price is price_not_found', () => {
  const result = extractTarget(page('<p>Nothing to buy here, 3 items</p>'), priceTarget());
  assert.equal(result.issues[0]?.code, 'price_not_found');
});

test('an explicit decimal setting is honoured for a lone separator before three digits', () => {
  const html = '<p id="p">1.299 €</p>';
  assert.equal(extractTarget(page(html), priceTarget({ decimal: ',' })).value, 129900);
  assert.equal(extractTarget(page('<p>1.299 BHD</p>'), priceTarget({ currency: 'BHD', decimal: '.' })).value, 1299);
});

test('without a decimal setting a lone separator before three digits groups thousands', () => {
  assert.equal(extractTarget(page('<p>1.299 €</p>'), priceTarget()).value, 129900);
  assert.equal(extractTarget(page('<p>Rp 31.500</p>'), priceTarget({ currency: 'IDR' })).value, 3150000);
  assert.equal(extractTarget(page('<p>1.727 Ft</p>'), priceTarget({ currency: 'HUF' })).value, 172700);
  assert.equal(extractTarget(page('<p>12.500 ₫</p>'), priceTarget({ currency: 'VND' })).value, 12500);
});

test('without a decimal setting a lone separator before three digits is decimal in a currency with three decimals', () => {
  const kwd = extractTarget(page('<p>1.299 KWD</p>'), priceTarget({ currency: 'KWD' }));
  assert.deepEqual([kwd.value, kwd.display], [1299, '1.299 KWD (automatic reading: "." is the decimal separator)']);
  assert.equal(extractTarget(page('<p>BHD 12,500.250</p>'), priceTarget({ currency: 'BHD' })).value, 12500250);
});

test('a price with more decimals than its currency is price_ambiguous, never rounded', () => {
  const vnd = extractTarget(page('<p>12.500 ₫</p>'), priceTarget({ currency: 'VND', decimal: '.' }));
  assert.equal(vnd.value, null);
  assert.equal(vnd.issues[0]?.code, 'price_ambiguous');
  assert.match(vnd.issues[0]?.message, /12\.5 has more decimals than VND \(0 decimal places\)/);
  const eur = extractTarget(page('<p>1.299 €</p>'), priceTarget({ decimal: '.' }));
  assert.equal(eur.issues[0]?.code, 'price_ambiguous');
});

test('a number that reads as a date, a measure or a threshold is not a price', () => {
  const bare = (text: string) => extractTarget(page(`<span id="p">${text}</span>`), priceTarget({ selection: selector('#p') }));
  for (const text of ['July, 2004', '16.00 ft', '3 kg', 'Free Shipping on Orders €49+.', 'min. order: 2']) {
    assert.equal(bare(text).issues[0]?.code, 'price_not_found', text);
  }
  assert.equal(bare('€6.56 + VAT').value, 656);
  assert.equal(bare('49.99 € in stock').value, 4999);
});

test('a selected price element without a sign is read in the target currency', () => {
  assert.equal(extractTarget(page('<span id="p">1,299.00</span>'), priceTarget({ selection: selector('#p') })).value, 129900);
});

test('a selected element showing two different prices is price_ambiguous', () => {
  const result = extractTarget(page('<div id="p">€ 20,00 € 15,00</div>'), priceTarget({ selection: selector('#p') }));
  assert.equal(result.issues[0]?.code, 'price_ambiguous');
});

const inElement = (text: string, currency = 'EUR') =>
  extractTarget(page(`<div id="p">${text}</div>`), priceTarget({ currency, selection: selector('#p') }));

test('an amount in parentheses is a note on the price outside them, and the display says it was set aside', () => {
  const result = inElement('34.12 (40.94 inc VAT)', 'USD');
  assert.deepEqual([result.value, result.display], [3412, '34.12 USD (set aside: 40.94 in parentheses)']);
});

test('an amount labelled as a former price is not the current price', () => {
  assert.equal(inElement('Was $120.00 Now $60.00', 'USD').value, 6000);
  assert.equal(inElement('UVP 49,99 € 39,99 €').value, 3999);
});

test('a price labelled as excluding tax gives way to one without that label', () => {
  const result = inElement('EUR29.66 (inc VAT 20% - UK) EUR24.71 (exc VAT 20% - UK)');
  assert.deepEqual([result.value, result.display], [2966, '29.66 EUR (set aside: EUR24.71 labelled as excluding tax)']);
});

test('a price labelled as excluding tax is the price when it is the only one', () => {
  assert.equal(inElement('€6.56 + VAT').value, 656);
});

test('two prices that no label tells apart stay price_ambiguous', () => {
  assert.equal(inElement('$ 281.40 $ 265.70', 'USD').issues[0]?.code, 'price_ambiguous');
  assert.equal(inElement('Was €20,00 was €15,00').issues[0]?.code, 'price_ambiguous');
});

test('a selected element showing a price range has its lower bound as price', () => {
  const range = (text: string) => extractTarget(page(`<div id="p">${text}</div>`), priceTarget({ selection: selector('#p') }));
  assert.equal(range('€6.95 - €9.95').value, 695);
  assert.equal(range('From 26 to 50 €').value, 2600);
  assert.equal(range('841,00 € – 995,00 €').value, 84100);
  assert.equal(range('25-09').value, null, 'written high to low it is no range');
});

test('a price in JPY is read without minor units', () => {
  assert.equal(extractTarget(page('<p>¥1,299</p>'), priceTarget({ currency: 'JPY' })).value, 1299);
});
