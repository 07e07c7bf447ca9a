import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  currencyExponent,
  decimalToMinorUnits,
  formatMinorUnits,
  isPriceCurrency,
  parseDotDecimal,
  toMinorUnits,
} from '../../../src/domain/extract/money.ts';

test('a price in JPY has no minor units', () => {
  assert.equal(currencyExponent('JPY'), 0);
  assert.equal(decimalToMinorUnits('1299', 'JPY'), 1299);
});

test('dinars of Kuwait, Bahrain, Oman, Jordan and Tunisia have three decimals', () => {
  for (const code of ['KWD', 'BHD', 'OMR', 'JOD', 'TND']) assert.equal(currencyExponent(code), 3, code);
  assert.equal(decimalToMinorUnits('423.923', 'KWD'), 423923);
});

test('most currencies have two decimals', () => {
  assert.equal(decimalToMinorUnits('29.00', 'EUR'), 2900);
  assert.equal(decimalToMinorUnits('0.5', 'USD'), 50);
});

test('an amount is never rounded: digits beyond the minor unit make it unconvertible', () => {
  assert.equal(toMinorUnits(parseDotDecimal('29.1583')!, 2), null);
  assert.equal(toMinorUnits(parseDotDecimal('0.125')!, 2), null);
  assert.equal(toMinorUnits(parseDotDecimal('12.5')!, 0), null);
});

test('trailing zeros beyond the minor unit are not rounding', () => {
  assert.equal(toMinorUnits(parseDotDecimal('12.500')!, 2), 1250);
  assert.equal(toMinorUnits(parseDotDecimal('200.00')!, 0), 200);
});

test('amounts are converted exactly, without floating point', () => {
  assert.equal(toMinorUnits(parseDotDecimal('1.110000000000000000')!, 2), 111);
  assert.equal(toMinorUnits(parseDotDecimal('90071992547409.91')!, 2), 9007199254740991);
  assert.equal(toMinorUnits(parseDotDecimal('90071992547409.92')!, 2), null);
});

test('metals and testing codes are not price currencies, unknown codes neither', () => {
  assert.equal(isPriceCurrency('XAU'), false);
  assert.equal(isPriceCurrency('XTS'), false);
  assert.equal(isPriceCurrency('ABC'), false);
  assert.equal(isPriceCurrency('CHF'), true);
});

test('the display shows grouped digits, the minor unit and the code', () => {
  assert.equal(formatMinorUnits(129900, 'EUR'), '1,299.00 EUR');
  assert.equal(formatMinorUnits(1299, 'JPY'), '1,299 JPY');
  assert.equal(formatMinorUnits(5, 'KWD'), '0.005 KWD');
});
