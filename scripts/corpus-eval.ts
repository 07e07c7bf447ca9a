// Scores the extraction domain against the shared corpora (see
// ../shared/corpora/prices.SOURCE.md and availability/SOURCE.md); used by
// scripts/eval-extraction.ts and test/domain/extract/corpus.test.ts.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { extractTarget } from '../src/domain/extract/extract-target.ts';
import { decimalToString, parseDotDecimal, toMinorUnits, currencyExponent } from '../src/domain/extract/money.ts';
import { parsePage } from '../src/domain/extract/parse-page.ts';
import { parsePriceText } from '../src/domain/extract/price-text.ts';
import type { Target } from '../src/domain/targets.ts';

export interface PriceCase {
  text: string | null;
  currency_hint: string | null;
  decimal_separator: string | null;
  expected_currency: string | null;
  expected_amount: string | null;
  xfail?: boolean;
  check_currency?: boolean;
  source_line: number;
}

export interface AvailabilityCase {
  file: string;
  expected: 'in_stock' | 'out_of_stock' | 'unknown';
  price: string | null;
  currency: string | null;
  check_price: boolean;
  html: string;
}

export interface CaseReport {
  passed: number;
  total: number;
  failures: string[];
}

export interface Corpora {
  prices: PriceCase[];
  availability: AvailabilityCase[];
}

export function loadCorpora(dir: string): Corpora | null {
  const pricesFile = join(dir, 'prices.json');
  const casesFile = join(dir, 'availability', 'cases.json');
  if (!existsSync(pricesFile) || !existsSync(casesFile)) return null;
  const prices = JSON.parse(readFileSync(pricesFile, 'utf8')) as PriceCase[];
  const cases = JSON.parse(readFileSync(casesFile, 'utf8')) as Omit<AvailabilityCase, 'html'>[];
  const availability = cases.map((c) => ({ ...c, html: readFileSync(join(dir, 'availability', c.file), 'utf8') }));
  return { prices, availability };
}

function report(): CaseReport {
  return { passed: 0, total: 0, failures: [] };
}

function score(into: CaseReport, passed: boolean, describe: () => string): void {
  into.total++;
  if (passed) into.passed++;
  else into.failures.push(describe());
}

/**
 * A price case passes when the amount read equals the expected one
 * numerically and, unless the case says not to, the currency text found is
 * the expected one. A "€" decimal-separator hint (a price-parser option) is
 * passed as no hint: pages only use "." or ",".
 */
export function evaluatePriceCases(cases: readonly PriceCase[]): { strict: CaseReport; xfail: CaseReport } {
  const strict = report();
  const xfail = report();
  for (const c of cases) {
    const decimal = c.decimal_separator === '.' || c.decimal_separator === ',' ? c.decimal_separator : undefined;
    const result = parsePriceText(c.text, { decimal, currencyHint: c.currency_hint });
    const expected = c.expected_amount === null ? null : parseDotDecimal(c.expected_amount);
    const amount = result.amount ? decimalToString(result.amount) : null;
    const amountOk = amount === (expected ? decimalToString(expected) : null);
    const currencyOk = c.check_currency === false || (result.currency?.text ?? null) === c.expected_currency;
    score(c.xfail ? xfail : strict, amountOk && currencyOk, () =>
      `line ${c.source_line}: ${JSON.stringify(c.text)} hint ${JSON.stringify(c.currency_hint)} decimal ${c.decimal_separator} → expected ${c.expected_currency} ${c.expected_amount}, got ${result.currency?.text ?? null} ${amount}`,
    );
  }
  return { strict, xfail };
}

const PAGE_URL = 'https://shop.example/product';

/**
 * Each product page is evaluated as monitors would: a page-scope availability
 * target, and a page-scope price target in the case's currency (any currency
 * when the page has no price: none may be found).
 */
export function evaluateAvailabilityCases(cases: readonly AvailabilityCase[]): { stock: CaseReport; price: CaseReport } {
  const stock = report();
  const price = report();
  for (const c of cases) {
    const page = parsePage(c.html, PAGE_URL);
    const availabilityTarget: Target = { id: 'stock', kind: 'availability', selection: { scope: 'page' } };
    const got = extractTarget(page, availabilityTarget);
    const state = got.ok ? got.value : got.issues[0]?.code === 'availability_unknown' ? 'unknown' : got.issues[0]?.code;
    score(stock, state === c.expected, () => `${c.file}: expected ${c.expected}, got ${state}`);

    if (!c.check_price) continue;
    const currency = c.currency ?? 'EUR';
    const priceTarget: Target = { id: 'price', kind: 'price', selection: { scope: 'page' }, currency };
    const result = extractTarget(page, priceTarget);
    const expectedAmount = c.price === null ? null : parseDotDecimal(c.price);
    const expected = expectedAmount ? toMinorUnits(expectedAmount, currencyExponent(currency) ?? 2) : null;
    const passed = expected === null ? !result.ok && result.issues[0]?.code === 'price_not_found' : result.ok && result.value === expected;
    score(price, passed, () => `${c.file}: expected ${expected ?? 'price_not_found'} ${currency}, got ${result.ok ? result.value : result.issues[0]?.code}`);
  }
  return { stock, price };
}
