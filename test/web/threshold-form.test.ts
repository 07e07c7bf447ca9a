import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dotDecimal } from '../../src/web/target-form.ts';

test('the form accepts a threshold written as the page writes prices', () => {
  assert.equal(dotDecimal('999,00', ','), '999.00');
  assert.equal(dotDecimal('1.299,50', ','), '1299.50');
  assert.equal(dotDecimal('999,00', ''), '999.00', 'automatic: a lone comma before cents is a decimal comma');
  assert.equal(dotDecimal('1,299.50', '.'), '1299.50');
  assert.equal(dotDecimal('30.00', ''), '30.00');
  assert.equal(dotDecimal(' 30 ', '.'), '30');
});
