import { ISO_4217_EXPONENTS } from './data/iso-4217.ts';

// Money is kept as decimal digit strings and integer minor units; floats never
// hold an amount, so 0.1 + 0.2 problems cannot reach a stored price.

/** A non-negative decimal number as its digits: `whole` has no leading zeros ("0" at least). */
export interface DecimalAmount {
  readonly whole: string;
  readonly fraction: string;
}

/** The minor unit exponent of an ISO 4217 code (JPY 0, EUR 2, KWD 3), or null when unknown or unitless (XAU). */
export function currencyExponent(code: string): number | null {
  // own keys only: "toString" and the like are no currency
  if (!Object.hasOwn(ISO_4217_EXPONENTS, code)) return null;
  return ISO_4217_EXPONENTS[code] ?? null;
}

/** Whether a code is a current ISO 4217 currency that prices can be in. */
export function isPriceCurrency(code: string): boolean {
  return currencyExponent(code) !== null;
}

export function makeDecimal(whole: string, fraction: string): DecimalAmount {
  return { whole: whole.replace(/^0+(?=\d)/u, '') || '0', fraction };
}

/** Reads a plain dot-decimal string ("30.00", "8097000"); anything else is null. */
export function parseDotDecimal(text: string): DecimalAmount | null {
  const match = /^(\d+)(?:\.(\d+))?$/u.exec(text.trim());
  return match ? makeDecimal(match[1]!, match[2] ?? '') : null;
}

/** Negative, zero or positive as a is less than, equal to or greater than b; exact. */
export function compareDecimals(a: DecimalAmount, b: DecimalAmount): number {
  if (a.whole.length !== b.whole.length) return a.whole.length - b.whole.length;
  if (a.whole !== b.whole) return a.whole < b.whole ? -1 : 1;
  const width = Math.max(a.fraction.length, b.fraction.length);
  const fa = a.fraction.padEnd(width, '0');
  const fb = b.fraction.padEnd(width, '0');
  return fa === fb ? 0 : fa < fb ? -1 : 1;
}

/** The amount in canonical dot-decimal form without trailing fraction zeros: "1299", "0.75". */
export function decimalToString(amount: DecimalAmount): string {
  const fraction = amount.fraction.replace(/0+$/u, '');
  return fraction ? `${amount.whole}.${fraction}` : amount.whole;
}

/**
 * Converts to integer minor units of a currency with `exponent` decimals.
 * Never rounds: an amount with non-zero digits beyond the currency's minor
 * unit (29.1583 GBP, 12.5 VND) is null, since a rounded price is an invented
 * one. Trailing zeros are fine (12.500 KWD, 30.00 JPY). Exact: digit
 * arithmetic in BigInt. Null too when the result is not a safe integer.
 */
export function toMinorUnits(amount: DecimalAmount, exponent: number): number | null {
  if (/[1-9]/u.test(amount.fraction.slice(exponent))) return null;
  const kept = amount.fraction.slice(0, exponent).padEnd(exponent, '0');
  const minor = BigInt(amount.whole + kept);
  return minor <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(minor) : null;
}

/** A dot-decimal string (a `below` threshold) in minor units of `currency`; null if unreadable or unknown currency. */
export function decimalToMinorUnits(text: string, currency: string): number | null {
  const amount = parseDotDecimal(text);
  const exponent = currencyExponent(currency);
  return amount === null || exponent === null ? null : toMinorUnits(amount, exponent);
}

/** "1,299.00 EUR", "1,299 JPY": an unambiguous display independent of the page's locale. */
export function formatMinorUnits(minor: number, currency: string): string {
  const exponent = currencyExponent(currency) ?? 0;
  const digits = String(minor).padStart(exponent + 1, '0');
  const whole = digits.slice(0, digits.length - exponent).replace(/\B(?=(\d{3})+$)/gu, ',');
  const fraction = digits.slice(digits.length - exponent);
  return `${fraction ? `${whole}.${fraction}` : whole} ${currency}`;
}
