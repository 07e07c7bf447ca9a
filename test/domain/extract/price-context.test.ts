import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { loadCorpora } from '../../../scripts/corpus-eval.ts';
import { loadRealPages } from '../../../scripts/realpages-eval.ts';
import { findNumberRuns } from '../../../src/domain/extract/number-text.ts';
import { pageTextView } from '../../../src/domain/extract/page-text.ts';
import { parsePage } from '../../../src/domain/extract/parse-page.ts';
import { CONTEXT_RULES, contextOf, isNonPriceNumber } from '../../../src/domain/extract/price-context.ts';

// The words around a number that make it no price (price-context.ts). Each
// rule's expression decides; its guard only spares asking the expression where
// it cannot match, so the guard must never turn away a text the expression
// matches. Checked on every number of the real shop pages' visible text and of
// the price-string corpus (loading throws when a corpus is missing), and on
// texts written to stand at each guard's edge.

const CORPORA = resolve(import.meta.dirname, '../../corpora');

const EDGES = [
  'July, 2004',
  'jul.  4',
  'Released 3 März 2020',
  'am 4. Juli',
  'DEC. 24',
  'on 4\u00a0 July',
  '4 .\u00a0July',
  '16.00 ft',
  '12\u00a0kg',
  '2 GB',
  'orders $49+',
  'now $49 + VAT',
  '$590起',
  '$590 起',
  'min. order: 1',
  'Orders over: €  50',
  'Orders above :€ 50',
  'spend\u202f£\u202f100',
  'QUANTITY 3',
  'minimum\u00a0\u00a0\u00a0 5',
  '購物車滿 490',
  '滿490',
  // a sign outside the basic plane (Indic Siyaq's rupee mark), a Kelvin sign and a long s, which fold to k and s
  `over ${String.fromCodePoint(0x1ecb0)}50`,
  'Mar\u212a 5',
  'order\u017f 12',
  `𝐉𝐮𝐥𝐲 4`,
  '(49) 12.99 / 3 x 4',
];

function numberTexts(): string[] {
  const pages = loadRealPages(resolve(CORPORA, 'realpages')).map(
    (page) => pageTextView(parsePage(page.html.toString('utf8'), page.url), 'plain').text,
  );
  const strings = loadCorpora(CORPORA).prices.flatMap((c) => [c.text, c.currency_hint].filter((t) => t !== null));
  return [...pages, ...strings, ...EDGES];
}

test("no rule's guard turns away a text its expression matches, and every expression matches somewhere", () => {
  const matched = CONTEXT_RULES.map(() => 0);
  for (const text of numberTexts()) {
    for (const run of findNumberRuns(text)) {
      const context = contextOf(text, run);
      CONTEXT_RULES.forEach((rule, i) => {
        const side = context[rule.side];
        if (!rule.expression.test(side)) return;
        matched[i]!++;
        assert.ok(rule.mayMatch(side), `${rule.expression.source.slice(0, 40)}… matches ${JSON.stringify(side)}, its guard says it cannot`);
      });
    }
  }
  assert.ok(
    matched.every((count) => count > 0),
    `matches per rule: ${matched.join(', ')}`,
  );
});

function nonPrice(text: string): boolean[] {
  return findNumberRuns(text).map((run) => isNonPriceNumber(text, run, false));
}

test('a date is no price: a month written before or after the number', () => {
  assert.deepEqual(nonPrice('July, 2004'), [true]);
  assert.deepEqual(nonPrice('3 März'), [true]);
  assert.deepEqual(nonPrice('$ 2004'), [false]);
});

test('a measure is no price: a unit right after the number, unless a currency is written there', () => {
  assert.deepEqual(nonPrice('16.00 ft'), [true]);
  const text = '1 KM';
  const [run] = findNumberRuns(text);
  assert.equal(isNonPriceNumber(text, run!, true), false);
});

test('a threshold is no price: "over", "min.", "滿" before it or "+" and "起" after it', () => {
  assert.deepEqual(nonPrice('Orders over: € 50'), [true]);
  assert.deepEqual(nonPrice('min. order: 1'), [true]);
  assert.deepEqual(nonPrice('購物車滿 490'), [true]);
  assert.deepEqual(nonPrice('$49+'), [true]);
  assert.deepEqual(nonPrice('$590 起'), [true]);
  assert.deepEqual(nonPrice('€6.56 + VAT'), [false]);
});
