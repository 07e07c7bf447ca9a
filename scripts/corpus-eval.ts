// Scores the extraction domain against the corpora in test/corpora (see
// prices.SOURCE.md and availability/SOURCE.md there); used by
// scripts/eval-extraction.ts and test/domain/extract/corpus.test.ts.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ErrorObject } from 'ajv';
import type { TargetExtraction } from '../src/domain/extract/target-extraction.ts';
import { findCurrencyMentions } from '../src/domain/extract/currency-text.ts';
import {
  currencyExponent,
  decimalToString,
  isPriceCurrency,
  parseDotDecimal,
  toMinorUnits,
  type DecimalAmount,
} from '../src/domain/extract/money.ts';
import { findNumberRuns } from '../src/domain/extract/number-text.ts';
import { parsePriceText } from '../src/domain/extract/price-text.ts';
import { DEFAULT_PLANS } from '../src/domain/plans.ts';
import { extractFromDocument, readTextDocument } from '../src/domain/extract/document.ts';
import { validationError, validatorCompiler } from '../src/http/validation.ts';
import { EvaluateBody } from '../src/schemas/previews.ts';
import { assertTargetsConfigured } from '../src/services/previews.ts';
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

/** Throws when the corpora are missing: accuracy is checked in CI, never skipped. */
export function loadCorpora(dir: string): Corpora {
  const pricesFile = join(dir, 'prices.json');
  const casesFile = join(dir, 'availability', 'cases.json');
  for (const file of [pricesFile, casesFile]) {
    if (!existsSync(file)) throw new Error(`corpus file ${file} is missing: test/corpora is part of the repository`);
  }
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

export interface PriceReport extends CaseReport {
  /** a value where the case expects a different one */
  wrong: string[];
  /** a value where the case expects none (no price, or one the currency cannot hold) */
  invented: string[];
  /** an issue where the case expects a value */
  refused: string[];
  /** values equal to the expected amount rounded to the currency's minor unit */
  rounded: string[];
}

function priceReport(): PriceReport {
  return { ...report(), wrong: [], invented: [], refused: [], rounded: [] };
}

const PAGE_URL = 'https://shop.example/product';

type BodyValidator = ((body: unknown) => boolean) & { errors?: ErrorObject[] | null };
let validateEvaluateBody: BodyValidator | null = null;

/**
 * Targets as POST /previews/{id}/evaluate handles them: the request body
 * validated by the API's validator (which fills in the schema's defaults), the
 * plan's target rules, then the function the extraction threads run for the
 * route, on a page holding `html`. Throws on a body the API would refuse.
 */
export function evaluateLikeTheApi(html: string, targets: unknown[]): TargetExtraction[] {
  const url = '/api/v1/previews/:preview_id/evaluate';
  validateEvaluateBody ??= validatorCompiler({ schema: EvaluateBody, method: 'POST', url, httpPart: 'body' }) as BodyValidator;
  const body = { targets };
  if (!validateEvaluateBody(body)) throw validationError(validateEvaluateBody.errors ?? [], 'body');
  const validated = body.targets as Target[];
  assertTargetsConfigured(validated, DEFAULT_PLANS.pro);
  const document = readTextDocument(html, PAGE_URL);
  return validated.map((target) => extractFromDocument(document, target));
}

const escapeHtml = (text: string): string => text.replace(/&/gu, '&amp;').replace(/</gu, '&lt;').replace(/>/gu, '&gt;');

/**
 * The ISO code a user monitoring the case would name: the code of the
 * expected currency (or, when the case names none, of any) as the text or its
 * label writes it, USD when there is none or the case writes one our data does not know (any code with the same
 * minor unit reads the same), and null when the currency is known to have no
 * ISO 4217 code a target can name (DEM, Toman, ₿): no value is right then.
 */
function caseCurrency(c: PriceCase): string | null {
  const wanted = c.expected_currency?.toLowerCase() ?? null;
  for (const text of [c.text, c.currency_hint, c.expected_currency]) {
    if (text === null) continue;
    const mentions = findCurrencyMentions(text, findNumberRuns(text)).filter((m) => wanted === null || m.text.toLowerCase() === wanted);
    if (mentions.length === 0) continue;
    if (wanted === null && mentions.every((m) => !m.codes.some(isPriceCurrency))) continue;
    const codes = mentions.flatMap((m) => m.codes).filter(isPriceCurrency);
    return codes.length === 0 ? null : codes.includes('USD') ? 'USD' : codes[0]!;
  }
  return 'USD';
}

function roundHalfUp(amount: DecimalAmount, exponent: number): number {
  const kept = amount.fraction.slice(0, exponent).padEnd(exponent, '0');
  return Number(amount.whole + kept) + ((amount.fraction[exponent] ?? '0') >= '5' ? 1 : 0);
}

/**
 * Each price case as a user meets it: a page holding the text (and its label,
 * when the case has one) in its own element, and a selector-scope price target
 * in the case's currency without `decimal` (the automatic reading) unless the
 * case states the page's separator, evaluated as the API's evaluate route does
 * (evaluateLikeTheApi). A case passes when the value
 * equals the expected amount in minor units, or when it expects no price (or
 * an amount the currency cannot hold without rounding) and gets an issue.
 * A "€" decimal-separator hint (a price-parser option) is passed as none.
 */
export function evaluatePriceCases(cases: readonly PriceCase[]): { strict: PriceReport; xfail: PriceReport } {
  const strict = priceReport();
  const xfail = priceReport();
  for (const c of cases) {
    const into = c.xfail ? xfail : strict;
    const nameable = caseCurrency(c);
    const currency = nameable ?? 'USD';
    const exponent = currencyExponent(currency) ?? 2;
    const label = c.currency_hint === null ? '' : `<span class="label">${escapeHtml(c.currency_hint)}</span> `;
    const html = `<!doctype html><html><body><p>${label}<span id="price">${escapeHtml(c.text ?? '')}</span></p></body></html>`;
    const [got] = evaluateLikeTheApi(html, [
      {
        id: 'price',
        kind: 'price',
        selection: { scope: 'selector', selector: '#price' },
        currency,
        ...(c.decimal_separator === '.' || c.decimal_separator === ',' ? { decimal: c.decimal_separator } : {}),
      },
    ]);
    assert.ok(got);
    const expectedAmount = c.expected_amount === null ? null : parseDotDecimal(c.expected_amount);
    const expected = expectedAmount === null || nameable === null ? null : toMinorUnits(expectedAmount, exponent);
    const outcome = got.ok ? `${got.value} (${got.display})` : got.issues[0]?.code;
    const line =
      `line ${c.source_line}: ${JSON.stringify(c.text)} hint ${JSON.stringify(c.currency_hint)} ` +
      `decimal ${c.decimal_separator} ` +
      `→ expected ${expected === null ? 'an issue' : `${expected} ${currency}`} (${c.expected_amount}), got ${outcome}`;
    const passed = got.ok ? got.value === expected : expected === null;
    score(into, passed, () => line);
    if (passed) continue;
    if (!got.ok) into.refused.push(line);
    else if (expected === null) into.invented.push(line);
    else into.wrong.push(line);
    const rounded = got.ok && expectedAmount !== null && expected === null && got.value === roundHalfUp(expectedAmount, exponent);
    if (rounded) into.rounded.push(line);
  }
  return { strict, xfail };
}

/**
 * The parser alone: a case passes when parsePriceText (no hint unless the
 * case states the separator) reads the expected amount and, unless the case
 * says not to, the expected currency text. A "€" separator hint is passed as
 * none: pages only use "." or ",".
 */
export function evaluateParserCases(cases: readonly PriceCase[]): { strict: CaseReport; xfail: CaseReport } {
  const strict = report();
  const xfail = report();
  for (const c of cases) {
    const decimal = c.decimal_separator === '.' || c.decimal_separator === ',' ? c.decimal_separator : undefined;
    const result = parsePriceText(c.text, { decimal, currencyHint: c.currency_hint });
    const expected = c.expected_amount === null ? null : parseDotDecimal(c.expected_amount);
    const amount = result.amount ? decimalToString(result.amount) : null;
    const amountOk = amount === (expected ? decimalToString(expected) : null);
    const currencyOk = c.check_currency === false || (result.currency?.text ?? null) === c.expected_currency;
    score(
      c.xfail ? xfail : strict,
      amountOk && currencyOk,
      () =>
        `line ${c.source_line}: ${JSON.stringify(c.text)} → expected ${c.expected_currency} ${c.expected_amount}, ` +
        `got ${result.currency?.text ?? null} ${amount}`,
    );
  }
  return { strict, xfail };
}

/**
 * Each product page is evaluated as the API's evaluate route would: a
 * page-scope availability target, and a page-scope price target in the case's currency (any currency
 * when the page has no price: none may be found).
 */
export function evaluateAvailabilityCases(cases: readonly AvailabilityCase[]): { stock: CaseReport; price: CaseReport } {
  const stock = report();
  const price = report();
  for (const c of cases) {
    const currency = c.currency ?? 'EUR';
    const [got, result] = evaluateLikeTheApi(c.html, [
      { id: 'stock', kind: 'availability', selection: { scope: 'page' } },
      { id: 'price', kind: 'price', selection: { scope: 'page' }, currency },
    ]);
    assert.ok(got && result);
    const state = got.ok ? got.value : got.issues[0]?.code === 'availability_unknown' ? 'unknown' : got.issues[0]?.code;
    score(stock, state === c.expected, () => `${c.file}: expected ${c.expected}, got ${state}`);

    if (!c.check_price) continue;
    const expectedAmount = c.price === null ? null : parseDotDecimal(c.price);
    const expected = expectedAmount ? toMinorUnits(expectedAmount, currencyExponent(currency) ?? 2) : null;
    const passed = expected === null ? !result.ok && result.issues[0]?.code === 'price_not_found' : result.ok && result.value === expected;
    score(
      price,
      passed,
      () => `${c.file}: expected ${expected ?? 'price_not_found'} ${currency}, got ${result.ok ? result.value : result.issues[0]?.code}`,
    );
  }
  return { stock, price };
}
