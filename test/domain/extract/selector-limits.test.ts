import { test } from 'node:test';
import assert from 'node:assert/strict';
import { selectorProblem, SELECTOR_LIMITS } from '../../../src/domain/extract/select.ts';
import { validateTarget } from '../../../src/domain/target-rules.ts';

test('selectors the preview proposes (ids, classes, child paths) have no problem', () => {
  for (const selector of ['#price', 'main > div:nth-of-type(2) > p.price', '[itemprop="price"]', 'div.product span.price', 'a, b']) {
    assert.equal(selectorProblem(selector), null, selector);
  }
});

test('a selector that is not valid CSS is selector_invalid', () => {
  for (const selector of ['p[[[', 'a[href', ':nosuchpseudo']) assert.equal(selectorProblem(selector)?.code, 'selector_invalid', selector);
});

test(`more than ${SELECTOR_LIMITS.backtrackingCombinators} descendant or "~" combinators, :has() or more than ${SELECTOR_LIMITS.groups} alternatives are selector_too_costly`, () => {
  for (const selector of ['section div div div div div div span', 'a b ~ c d e', 'a:not(b c d e f)', 'div:has(span)', 'a, b, c, d, e, f']) {
    assert.equal(selectorProblem(selector)?.code, 'selector_too_costly', selector);
  }
  assert.equal(selectorProblem('a b c d'), null, 'three are allowed');
});

test('target validation reports the selector problem on the selector field', () => {
  const details = validateTarget({ id: 't', kind: 'text', selection: { scope: 'selector', selector: 'p[[[' } }, 0);
  assert.deepEqual(
    details.map((d) => d.field),
    ['targets[0].selection.selector'],
  );
  assert.match(details[0]!.message, /^selector_invalid: the selector is not valid CSS/);
});
