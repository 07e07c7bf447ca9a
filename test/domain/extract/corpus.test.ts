import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { evaluateAvailabilityCases, evaluatePriceCases, loadCorpora } from '../../../scripts/corpus-eval.ts';

// Accuracy thresholds on the shared corpora (../shared/corpora next to the
// repository): at least 99% of the price cases not marked xfail, and every
// product page's stock state and price.
const DIR = resolve(import.meta.dirname, '../../../../shared/corpora');
const corpora = loadCorpora(DIR);

test('at least 99% of the price-parser cases not marked xfail are read right', (t) => {
  if (!corpora) return t.skip(`corpora not found at ${DIR}`);
  const { strict } = evaluatePriceCases(corpora.prices);
  assert.ok(strict.passed / strict.total >= 0.99, `${strict.passed}/${strict.total}\n${strict.failures.join('\n')}`);
});

test('every product page with a clear expectation gets its stock state', (t) => {
  if (!corpora) return t.skip(`corpora not found at ${DIR}`);
  const { stock } = evaluateAvailabilityCases(corpora.availability);
  assert.deepEqual(stock.failures, []);
});

test('every product page with a price claim gets that price, or price_not_found when it has none', (t) => {
  if (!corpora) return t.skip(`corpora not found at ${DIR}`);
  const { price } = evaluateAvailabilityCases(corpora.availability);
  assert.deepEqual(price.failures, []);
});
