import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StockText, stockWording } from '../../../src/domain/extract/stock-text.ts';

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
