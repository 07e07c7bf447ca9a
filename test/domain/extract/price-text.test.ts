import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CURRENCY_SIGNS } from '../../../src/domain/extract/data/currency-signs.ts';
import { decimalToString } from '../../../src/domain/extract/money.ts';
import { findPriceMentions, parsePriceText } from '../../../src/domain/extract/price-text.ts';
import type { DecimalHint } from '../../../src/domain/extract/number-text.ts';

function amountOf(text: string, decimal?: DecimalHint): string | null {
  const { amount } = parsePriceText(text, { decimal });
  return amount ? decimalToString(amount) : null;
}

function currencyOf(text: string, currencyHint?: string): string | null {
  return parsePriceText(text, { currencyHint }).currency?.text ?? null;
}

test('the last of two different separators is the decimal separator', () => {
  assert.equal(amountOf('1.299,00 €'), '1299');
  assert.equal(amountOf('€1,299.00'), '1299');
  assert.equal(amountOf('123,456.789 OMR'), '123456.789');
});

test('apostrophes and spaces group thousands', () => {
  assert.equal(amountOf("CHF 1'049,95"), '1049.95');
  assert.equal(amountOf('1\u00a0298,00 €'), '1298');
  assert.equal(amountOf('PTE 120 000 000'), '120000000');
});

test('a separator followed by a dash marks a whole amount', () => {
  assert.equal(amountOf("CHF 1'299.–"), '1299');
  assert.equal(amountOf('1.899,-', '.'), '1899');
});

test('a lone separator before other than three digits is the decimal separator, whatever the hint', () => {
  assert.equal(amountOf('129,00 €', '.'), '129');
  assert.equal(amountOf('$12.99', ','), '12.99');
  assert.equal(amountOf('29.1583'), '29.1583');
});

test('a lone separator before three digits follows the decimal hint', () => {
  assert.equal(amountOf('140.000', '.'), '140');
  assert.equal(amountOf('140.000', ','), '140000');
  assert.equal(amountOf('1,299', ','), '1.299');
});

test('without a hint a lone separator before three digits groups thousands', () => {
  assert.equal(amountOf('$699,000'), '699000');
  assert.equal(amountOf('Rp 31.500'), '31500');
});

test('a repeated separator groups thousands', () => {
  assert.equal(amountOf('$ 1.144.000'), '1144000');
});

test('a euro sign between a number and two digits is the decimal separator', () => {
  assert.equal(amountOf('35€99'), '35.99');
  assert.equal(amountOf('35€ 99'), '35.99');
});

test('a euro sign with digits touching both sides is the decimal separator, with a space only before two digits', () => {
  assert.equal(amountOf('1250€600'), '1250.6');
  assert.equal(amountOf('12€5'), '12.5');
  assert.equal(amountOf('1250€ 600'), '1250');
});

test('a leading point is a decimal point when nothing later can be one', () => {
  assert.equal(amountOf('.75 €'), '0.75');
  assert.equal(amountOf('$.750.30'), '750.3');
});

test('the first number of a price string is its amount', () => {
  assert.equal(amountOf('Was: $124.95 Now: $0.00'), '124.95');
  assert.equal(amountOf('205,68 € 205.68'), '205.68');
});

test('a percentage is not a price', () => {
  assert.equal(amountOf('40% OFF'), null);
  assert.equal(amountOf('-15 % 129,00 €'), '129');
});

test('"Free" alone is a price of zero, free shipping is not', () => {
  assert.equal(amountOf('Free!'), '0');
  assert.equal(amountOf('Free shipping'), null);
});

test('text without a number has no amount', () => {
  assert.equal(amountOf('Not Available'), null);
});

test('currency signs and codes are found as written', () => {
  assert.equal(currencyOf('¥1,299'), '¥');
  assert.equal(currencyOf('US$ 12'), 'US$');
  assert.equal(currencyOf('1128240 рублей'), 'руб');
  assert.equal(currencyOf('140,00 pln'), 'pln');
});

test('every currency sign and code is found after any character that is not a letter, and none after a letter', () => {
  // the text's start, and characters that start no sign themselves ("$" does: "$U" is one)
  const signStarts = new Set(CURRENCY_SIGNS.map((s) => s.sign.charAt(0)));
  const before = [
    '',
    ...[...Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i)), '\n', '\u00a0', '\u2013'].filter(
      (ch) => !/\p{L}/u.test(ch) && !signStarts.has(ch),
    ),
  ];
  const startsOf = (text: string, written: string) =>
    findPriceMentions(text)
      .filter((m) => m.currency.text === written)
      .map((m) => m.currency.start);
  for (const written of [...CURRENCY_SIGNS.map((s) => s.sign), 'EUR', 'usd']) {
    for (const ch of before) {
      assert.ok(startsOf(`${ch}${written} 12`, written).includes(ch.length), `${JSON.stringify(ch)} before ${written}`);
    }
    if (/^\p{L}/u.test(written)) assert.deepEqual(startsOf(`x${written} 12`, written), [], `a letter before ${written}`);
  }
});

test('a sign matched whatever its case is found in upper and lower case', () => {
  for (const { sign } of CURRENCY_SIGNS.filter((s) => s.fold)) {
    for (const written of [sign.toUpperCase(), sign.toLowerCase()]) {
      assert.equal(currencyOf(`12 ${written}`), written, `12 ${written}`);
    }
  }
});

test('a bare dollar sign gives way to a more specific currency', () => {
  assert.equal(currencyOf('$1,190.00 AUD'), 'AUD');
  assert.equal(currencyOf('SGD4.90 $'), 'SGD');
});

test('words that merely contain a code are not currencies', () => {
  assert.equal(currencyOf('Pure & IP BP Ph. Eur. USP ACS AR LR'), null);
  assert.equal(currencyOf('AQUAFINESSE'), null);
});

test('the currency hint is used when the price string names none', () => {
  assert.equal(currencyOf('39.95', 'Price From £ 39.95'), '£');
  assert.equal(currencyOf('€16.95', 'USD'), '€');
});

test('short signs count only next to a number', () => {
  assert.equal(currencyOf('Sold by Br Smith, 25 units'), null);
  assert.equal(currencyOf('11,33 Br'), 'Br');
});

test('a currency sign between two numbers belongs to the closer one', () => {
  const mentions = findPriceMentions('1250€ 600');
  assert.deepEqual(
    mentions.map((m) => [decimalToString(m.amount), m.currency.text]),
    [['1250', '€']],
  );
});

test('a currency sign at equal distance from two numbers counts for both', () => {
  const mentions = findPriceMentions('10 € 20');
  assert.deepEqual(
    mentions.map((m) => decimalToString(m.amount)),
    ['10', '20'],
  );
});

test('every number with a currency next to it is a price mention', () => {
  const mentions = findPriceMentions('Was €20,00 now 15,00 € — 3 items left');
  assert.deepEqual(
    mentions.map((m) => [decimalToString(m.amount), m.currency.codes]),
    [
      ['20', ['EUR']],
      ['15', ['EUR']],
    ],
  );
});
