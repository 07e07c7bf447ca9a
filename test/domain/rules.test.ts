import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Target } from '../../src/domain/targets.ts';
import { detectChange, thresholdToMinor, type ChangeDecision } from '../../src/domain/rules.ts';

const text = (rule?: Target['rule'], phrase?: string): Target => ({
  id: 'body',
  kind: 'text',
  selection: { scope: 'page' },
  ...(rule === undefined ? {} : { rule }),
  ...(phrase === undefined ? {} : { phrase }),
});
const price = (rule: Target['rule'], threshold?: string): Target => ({
  id: 'price',
  kind: 'price',
  selection: { scope: 'selector', selector: '#price' },
  currency: 'EUR',
  rule,
  ...(threshold === undefined ? {} : { threshold }),
});
const stock = (rule: Target['rule']): Target => ({ id: 'stock', kind: 'availability', selection: { scope: 'page' }, rule });
const links = (match?: string): Target => ({
  id: 'news',
  kind: 'links',
  selection: { scope: 'selector', selector: 'main' },
  rule: 'new_links',
  ...(match === undefined ? {} : { match }),
});
const EUR = { currencyExponent: 2 };

function matches(decision: ChangeDecision): unknown {
  assert.equal(decision.outcome, 'changed');
  return decision.outcome === 'changed' ? decision.ruleMatches : undefined;
}

// Baselines

test('first capture seeds the baseline without a change', () => {
  assert.deepEqual(detectChange(price('below', '30.00'), null, 2500, EUR), {
    outcome: 'seeded',
    baseline: 2500,
    newlySeenLinks: [],
  });
});

test('an undetermined value never becomes the baseline', () => {
  assert.deepEqual(detectChange(price('changed'), 2900, null), { outcome: 'undetermined', baseline: 2900, newlySeenLinks: [] });
});

test('an undetermined first value leaves the target without a baseline', () => {
  assert.deepEqual(detectChange(text('changed'), null, null), { outcome: 'undetermined', baseline: null, newlySeenLinks: [] });
});

test('an equal value is no change', () => {
  assert.deepEqual(detectChange(price('changed'), 2900, 2900), { outcome: 'unchanged', baseline: 2900, newlySeenLinks: [] });
});

test('text differing only in whitespace is no change', () => {
  assert.equal(detectChange(text('changed'), 'Only 3 left', ' Only  3\nleft ').outcome, 'unchanged');
});

test('a change makes the new value the baseline', () => {
  const decision = detectChange(price('changed'), 2900, 2500);
  assert.equal(decision.outcome, 'changed');
  assert.equal(decision.baseline, 2500);
  assert.ok(decision.outcome === 'changed' && decision.before === 2900 && decision.after === 2500);
});

// Legacy any-change and rule_matches shape

test('a target without a rule records changes with rule_matches null', () => {
  assert.equal(matches(detectChange(text(), 'a', 'b')), null);
});

test('a matching rule is listed with the target id', () => {
  assert.deepEqual(matches(detectChange(text('changed'), 'a', 'b')), [{ target_id: 'body', rule: 'changed' }]);
});

test('a change that matches no rule has empty rule_matches', () => {
  assert.deepEqual(matches(detectChange(price('dropped'), 2500, 2900)), []);
});

// Text rules

test('appears fires when the phrase was absent and is now present', () => {
  assert.deepEqual(matches(detectChange(text('appears', 'In stock'), 'Sold out', 'Now IN  STOCK!')), [
    { target_id: 'body', rule: 'appears' },
  ]);
});

test('appears does not fire again while the phrase stays present', () => {
  assert.deepEqual(matches(detectChange(text('appears', 'in stock'), 'In stock: 3', 'In stock: 2')), []);
});

test('disappears fires when the phrase was present and is now absent', () => {
  assert.deepEqual(matches(detectChange(text('disappears', 'sold out'), 'Sold out', 'Add to cart')), [
    { target_id: 'body', rule: 'disappears' },
  ]);
});

test('disappears does not fire while the phrase stays absent', () => {
  assert.deepEqual(matches(detectChange(text('disappears', 'sold out'), 'Add to cart', 'Buy now')), []);
});

// Price rules

test('dropped fires when the price goes down', () => {
  assert.deepEqual(matches(detectChange(price('dropped'), 2900, 2899)), [{ target_id: 'price', rule: 'dropped' }]);
});

test('dropped does not fire when the price goes up', () => {
  assert.deepEqual(matches(detectChange(price('dropped'), 2900, 3100)), []);
});

test('below fires when the price crosses below the threshold', () => {
  assert.deepEqual(matches(detectChange(price('below', '30.00'), 3000, 2999, EUR)), [{ target_id: 'price', rule: 'below' }]);
});

test('below does not fire again while the price stays below', () => {
  assert.deepEqual(matches(detectChange(price('below', '30.00'), 2900, 2500, EUR)), []);
});

test('below does not fire when the price falls but stays above the threshold', () => {
  assert.deepEqual(matches(detectChange(price('below', '30.00'), 3500, 3000, EUR)), []);
});

test('below fires again after the price went back up and crosses again', () => {
  const target = price('below', '30.00');
  assert.deepEqual(matches(detectChange(target, 2500, 3200, EUR)), []);
  assert.deepEqual(matches(detectChange(target, 3200, 2500, EUR)), [{ target_id: 'price', rule: 'below' }]);
});

test('below reads the threshold with the currency exponent', () => {
  assert.deepEqual(matches(detectChange(price('below', '3000'), 3000, 2999, { currencyExponent: 0 })), [
    { target_id: 'price', rule: 'below' },
  ]);
});

test('below without the currency exponent is a programming error', () => {
  assert.throws(() => detectChange(price('below', '30.00'), 3000, 2999), TypeError);
});

test('thresholds convert to minor units of the currency', () => {
  assert.equal(thresholdToMinor('30.00', 2), 3000);
  assert.equal(thresholdToMinor('30', 2), 3000);
  assert.equal(thresholdToMinor('30.5', 2), 3050);
  assert.equal(thresholdToMinor('1500', 0), 1500);
  assert.equal(thresholdToMinor('1.234', 3), 1234);
});

test('threshold digits beyond the exponent round up, keeping comparisons exact', () => {
  // p < 30.005 for whole cents p exactly when p < 3001.
  assert.equal(thresholdToMinor('30.005', 2), 3001);
  assert.equal(thresholdToMinor('30.0000', 2), 3000);
  assert.equal(thresholdToMinor('1500.50', 0), 1501);
});

test('malformed thresholds are rejected', () => {
  assert.throws(() => thresholdToMinor('30,00', 2), RangeError);
  assert.throws(() => thresholdToMinor('-1', 2), RangeError);
  assert.throws(() => thresholdToMinor('', 2), RangeError);
  assert.throws(() => thresholdToMinor('30.00', -1), RangeError);
  assert.throws(() => thresholdToMinor('999999999999.9999', 4), RangeError);
});

// Availability rules

test('available fires when out of stock becomes in stock', () => {
  assert.deepEqual(matches(detectChange(stock('available'), 'out_of_stock', 'in_stock')), [{ target_id: 'stock', rule: 'available' }]);
});

test('available does not fire when the item goes out of stock', () => {
  assert.deepEqual(matches(detectChange(stock('available'), 'in_stock', 'out_of_stock')), []);
});

test('unavailable fires when in stock becomes out of stock', () => {
  assert.deepEqual(matches(detectChange(stock('unavailable'), 'in_stock', 'out_of_stock')), [{ target_id: 'stock', rule: 'unavailable' }]);
});

test('availability changed fires on either transition', () => {
  assert.deepEqual(matches(detectChange(stock('changed'), 'in_stock', 'out_of_stock')), [{ target_id: 'stock', rule: 'changed' }]);
});

// Links rules

const A = 'https://shop.example/a';
const B = 'https://shop.example/b';
const C = 'https://shop.example/c';

test('new_links fires when a never-seen link appears', () => {
  const decision = detectChange(links(), [A], [A, B], { seenLinks: new Set([A]) });
  assert.deepEqual(matches(decision), [{ target_id: 'news', rule: 'new_links' }]);
  assert.deepEqual(decision.newlySeenLinks, [B]);
});

test('links seen before do not count as new', () => {
  // B was on the page earlier, disappeared, and is back.
  const decision = detectChange(links(), [A], [A, B], { seenLinks: new Set([A, B]) });
  assert.deepEqual(matches(decision), []);
  assert.deepEqual(decision.newlySeenLinks, []);
});

test('the baseline links count as seen even without a history', () => {
  assert.deepEqual(matches(detectChange(links(), [A, B], [B])), []);
});

test('a removed link is a change but not a new link', () => {
  assert.deepEqual(matches(detectChange(links(), [A, B], [A], { seenLinks: new Set([A, B]) })), []);
});

test('new_links counts only links containing the match filter', () => {
  const decision = detectChange(links('/c'), [A], [A, B], { seenLinks: new Set([A]) });
  assert.deepEqual(matches(decision), []);
  assert.deepEqual(decision.newlySeenLinks, [B]);
  assert.deepEqual(matches(detectChange(links('/c'), [A], [A, C])), [{ target_id: 'news', rule: 'new_links' }]);
});

test('the first links capture reports its links as seen', () => {
  assert.deepEqual(detectChange(links(), null, [B, A, B]), { outcome: 'seeded', baseline: [B, A, B], newlySeenLinks: [A, B] });
});

// Invalid targets

test('a rule that does not apply to the kind is a programming error', () => {
  assert.throws(() => detectChange({ ...text(), rule: 'below' }, 'a', 'b'), TypeError);
});

test('a value of the wrong shape for the kind cannot seed a baseline', () => {
  assert.throws(() => detectChange(price('changed'), null, '29.00'), TypeError);
});

test('appears without a phrase is a programming error', () => {
  assert.throws(() => detectChange(text('appears'), 'a', 'b'), TypeError);
});
