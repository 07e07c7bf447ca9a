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

test('a blank selector, a lone combinator or one that ends with a combinator is selector_invalid, not a missing element', () => {
  for (const selector of ['', '   ', '>', '#price >', 'a ~', 'a, #price +', ':is(a >)']) {
    assert.equal(selectorProblem(selector)?.code, 'selector_invalid', JSON.stringify(selector));
  }
});

test('combinators nested in :is(), :where(), :not() and :nth-child(… of …) count towards the limit like top-level ones', () => {
  for (const selector of [
    ':nth-child(n of div div div div div div div div) p',
    ':nth-last-child(2 of a b c) p',
    ':is(a b) :where(c d) e',
    ':not(:is(a b c d e))',
    'p:nth-child(odd of :is(a b c d))',
  ]) {
    assert.equal(selectorProblem(selector)?.code, 'selector_too_costly', selector);
  }
  assert.equal(selectorProblem(':nth-child(2 of p.price)'), null, 'a scan of siblings by a simple selector is allowed');
});

test(`pseudo-classes nested more than ${SELECTOR_LIMITS.nesting} deep or a nested list of more than ${SELECTOR_LIMITS.groups} alternatives are selector_too_costly`, () => {
  for (const selector of [
    ':is(:is(:is(a)))',
    ':nth-child(n of :nth-child(n of :nth-child(n of p)))',
    ':is(a, b, c, d, e, f)',
    ':not(:is(:has(a)))',
  ]) {
    assert.equal(selectorProblem(selector)?.code, 'selector_too_costly', selector);
  }
  assert.equal(selectorProblem('p:not(:is(.a, .b))'), null, 'two levels are allowed');
});

test('target validation reports the selector problem on the selector field', () => {
  const details = validateTarget({ id: 't', kind: 'text', selection: { scope: 'selector', selector: 'p[[[' } }, 0);
  assert.deepEqual(
    details.map((d) => d.field),
    ['targets[0].selection.selector'],
  );
  assert.match(details[0]!.message, /^selector_invalid: the selector is not valid CSS/);
});
