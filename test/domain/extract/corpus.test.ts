import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { evaluateAvailabilityCases, evaluateParserCases, evaluatePriceCases, loadCorpora } from '../../../scripts/corpus-eval.ts';

// Accuracy on the corpora in test/corpora (loading throws when they are
// missing, so the tests fail rather than skip).
// Price cases go through the path a user's request takes: a page holding the
// text and a price target without `decimal` (automatic), validated by the
// API's body validator with its defaults and read by the evaluate route's
// extraction (evaluateLikeTheApi).
const DIR = resolve(import.meta.dirname, '../../corpora');
const corpora = loadCorpora(DIR);
const prices = evaluatePriceCases(corpora.prices);

test('no price is ever rounded to fit its currency', () => {
  assert.deepEqual([...prices.strict.rounded, ...prices.xfail.rounded], []);
});

test('at most 5 wrong or invented price values on the whole corpus, xfail included', () => {
  const bad = [...prices.strict.wrong, ...prices.strict.invented, ...prices.xfail.wrong, ...prices.xfail.invented];
  assert.ok(bad.length <= 5, bad.join('\n'));
});

test("every wrong or invented price value is listed by its corpus line in the guide's accuracy section", () => {
  const guide = readFileSync(resolve(import.meta.dirname, '../../../docs/guide.md'), 'utf8');
  const section = guide.slice(guide.indexOf('### Accuracy'), guide.indexOf('## Monitoring engine'));
  const bad = [...prices.strict.wrong, ...prices.strict.invented, ...prices.xfail.wrong, ...prices.xfail.invented];
  const unlisted = bad.filter((line) => !section.includes(`${/^line \d+/u.exec(line)![0]},`));
  assert.deepEqual(unlisted, []);
});

test('at least 99% of the price cases not marked xfail get their value through the evaluate route with API defaults', () => {
  const { strict } = prices;
  assert.ok(strict.passed / strict.total >= 0.99, `${strict.passed}/${strict.total}\n${strict.failures.join('\n')}`);
});

test('at least 99% of the price cases not marked xfail are read right by the price-text parser', () => {
  const { strict } = evaluateParserCases(corpora.prices);
  assert.ok(strict.passed / strict.total >= 0.99, `${strict.passed}/${strict.total}\n${strict.failures.join('\n')}`);
});

test('every product page with a clear expectation gets its stock state', () => {
  const { stock } = evaluateAvailabilityCases(corpora.availability);
  assert.deepEqual(stock.failures, []);
});

test('every product page with a price claim gets that price, or price_not_found when it has none', () => {
  const { price } = evaluateAvailabilityCases(corpora.availability);
  assert.deepEqual(price.failures, []);
});
