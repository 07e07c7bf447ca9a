import type { DecimalHint } from './number-text.ts';
import { currencyExponent, makeDecimal, toMinorUnits, type DecimalAmount } from './money.ts';
import type { JsonValue } from './json-document.ts';
import type { PriceOutcome } from './price.ts';
import { parsePriceText } from './price-text.ts';

// A JSON value as a price in the target's currency. A number is an amount
// written exactly: 24.99 is 2499 cents, never a float rounded to cents. A
// string ("€24,99", "24.99 EUR") goes through the price reader of page text.
// As everywhere, more decimals than the currency has is no value.

/** Significant digits a JSON number keeps through parsing into a double: more are not the digits the document wrote. */
const EXACT_DIGITS = 15;

/** The decimal digits of a non-negative finite number, from its shortest round-trip form ("24.99", "1e-7"). */
export function numberAsDecimal(value: number): DecimalAmount | null {
  if (!Number.isFinite(value) || value < 0) return null;
  const [mantissa = '', exponent = '0'] = String(value).split('e');
  const [whole = '', fraction = ''] = mantissa.split('.');
  const digits = whole + fraction;
  if (digits.replace(/^0+/u, '').length > EXACT_DIGITS) return null;
  const point = whole.length + Number(exponent);
  if (point <= 0) return makeDecimal('0', '0'.repeat(-point) + digits);
  if (point >= digits.length) return makeDecimal(digits + '0'.repeat(point - digits.length), '');
  return makeDecimal(digits.slice(0, point), digits.slice(point));
}

function inCurrency(amount: DecimalAmount, currency: string, written: string): PriceOutcome {
  const minor = toMinorUnits(amount, currencyExponent(currency) ?? 0);
  if (minor === null) {
    return { ok: false, code: 'price_ambiguous', message: `${written} has more decimals than ${currency} has; a price is never rounded` };
  }
  return { ok: true, minor, currency, reading: null };
}

export function jsonPrice(value: JsonValue, currency: string | undefined, decimal: DecimalHint | undefined): PriceOutcome {
  if (currency === undefined || currencyExponent(currency) === null) {
    return { ok: false, code: 'price_not_found', message: 'the target names no ISO 4217 currency to read prices in' };
  }
  if (typeof value === 'number') {
    const amount = numberAsDecimal(value);
    if (amount === null) {
      return { ok: false, code: 'price_not_found', message: `${value} is not a price: negative, or more than ${EXACT_DIGITS} digits` };
    }
    return inCurrency(amount, currency, String(value));
  }
  if (typeof value !== 'string') {
    const type =
      value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value === 'object' ? 'an object' : `a ${typeof value}`;
    return { ok: false, code: 'price_not_found', message: `the value is ${type}, not a number or a price text` };
  }
  const read = parsePriceText(value, { decimal });
  if (read.amount === null) return { ok: false, code: 'price_not_found', message: `no amount in ${JSON.stringify(value)}` };
  const codes = read.currency?.codes ?? [];
  if (codes.length > 0 && !codes.includes(currency)) {
    return { ok: false, code: 'currency_mismatch', message: `${JSON.stringify(value)} is in ${codes.join('/')}, not ${currency}` };
  }
  return inCurrency(read.amount, currency, JSON.stringify(value));
}
