import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StockText, stockWording } from '../../../src/domain/extract/stock-text.ts';
import { IN_STOCK_PHRASES, OUT_OF_STOCK_PHRASES } from '../../../src/domain/extract/data/stock-phrases.ts';

// Texts as visible-text.ts makes them (single spaces and line breaks), with the
// characters whose normalising does not map one character to one: İ (two
// characters in lower case), Σ (its lower case depends on the next letter),
// surrogate pairs and a decomposed accent.
const TEXTS = [
  'Kettle\nIn stock\nAdd to cart',
  'OUT OF STOCK\nNotify me when available',
  'İn stock now: out of stock elsewhere',
  'ΌΛΟΣ ΣΕ ΑΠΌΘΕΜΑ\nSold out',
  '😀 Sold out 😀 In stock',
  'Cafe\u0301 sold out\nIn stock',
  'It’s sold out ʼtil May',
];

// A page's text, long against its controls' labels: a short stretch is searched for phrases on its own, a long one
// through the whole text.
const PAGE = [
  'Home Deals Kettles',
  'Steel kettle 1.7 l',
  'In stock',
  'Add to cart',
  'Other kettles: Glass kettle Sold out',
  'Notify me when available',
  'Currently unavailable online, available in store',
  'Out of stock',
].join('\n');

test('the wording of any stretch of a text read from the text normalised once equals the stretch’s own wording', () => {
  for (const text of TEXTS) {
    const words = new StockText(text);
    assert.deepEqual(words.whole(), stockWording(text), text);
    for (let from = 0; from <= text.length; from++) {
      for (let to = from; to <= text.length; to++) {
        assert.deepEqual(words.of(from, to), stockWording(text.slice(from, to)), `${text} [${from}, ${to})`);
      }
    }
  }
});

test('a stretch reads the same wording whether it is searched on its own or through the whole text', () => {
  for (let from = 0; from <= PAGE.length; from++) {
    for (let to = from; to <= PAGE.length; to++) {
      const expected = stockWording(PAGE.slice(from, to));
      // a text of its own for each stretch, asked first: a short stretch is searched alone
      assert.deepEqual(new StockText(PAGE).of(from, to), expected, `[${from}, ${to}) alone`);
    }
  }
  const words = new StockText(PAGE);
  assert.deepEqual(words.whole(), stockWording(PAGE));
  for (let from = 0; from <= PAGE.length; from += 3) {
    for (let to = from; to <= PAGE.length; to += 2) {
      assert.deepEqual(words.of(from, to), stockWording(PAGE.slice(from, to)), `[${from}, ${to}) after the whole`);
    }
  }
});

test('a phrase with an apostrophe is read whichever apostrophe the text spells it with', () => {
  const lists = [
    { phrases: OUT_OF_STOCK_PHRASES, side: 'out' as const },
    { phrases: IN_STOCK_PHRASES, side: 'in' as const },
  ];
  for (const { phrases, side } of lists) {
    for (const { phrase } of phrases.filter((p) => /['’ʼ]/u.test(p.phrase))) {
      for (const apostrophe of ["'", '’', 'ʼ']) {
        const text = `Kettle\n${phrase.replace(/['’ʼ]/gu, apostrophe).toUpperCase()}\nAdd to cart`;
        assert.ok(stockWording(text)[side] > 0, text);
        assert.ok(new StockText(text).whole()[side] > 0, text);
      }
    }
  }
});
