import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { evaluateRealPagesDirectly, formatScore, loadRealPages, scoreAvailability, scorePrices } from '../../../scripts/realpages-eval.ts';

// Whole-page price and availability targets on the real shop pages of
// test/corpora/realpages, read by the evaluate route's extraction with the
// API's defaults and scored as the upstream benchmark scores (errata applied).
// `npm run eval:realpages` measures the same through HTTP and lists every miss.
// Loading throws when the corpus is missing: these tests fail, never skip.
const outcomes = evaluateRealPagesDirectly(loadRealPages(resolve(import.meta.dirname, '../../corpora/realpages')));

test('whole-page prices on real shop pages: precision at least 0.97, a wrong price being worse than none', () => {
  const score = scorePrices(outcomes);
  assert.ok(score.precision >= 0.97, `${formatScore(score)}\n${score.misses.join('\n')}`);
});

test('whole-page prices on real shop pages: F1 at least 0.93', () => {
  const score = scorePrices(outcomes);
  assert.ok(score.f1 >= 0.93, `${formatScore(score)}\n${score.misses.join('\n')}`);
});

test('whole-page availability on real shop pages: precision at least 0.97 and F1 at least 0.95', () => {
  const score = scoreAvailability(outcomes);
  assert.ok(score.precision >= 0.97 && score.f1 >= 0.95, `${formatScore(score)}\n${score.misses.join('\n')}`);
});
