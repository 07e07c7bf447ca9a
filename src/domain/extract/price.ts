import type { AnyNode } from 'domhandler';
import { currencyExponent, decimalToString, formatMinorUnits, makeDecimal, toMinorUnits, type DecimalAmount } from './money.ts';
import type { DecimalHint } from './number-text.ts';
import { areasAroundTitle, areasCoverPage } from './main-offer.ts';
import type { ParsedPage } from './parse-page.ts';
import { currentPrices, isShippingRow, itemPrices } from './price-roles.ts';
import { findAmounts, findPriceMentions, findPriceRange, isFreeText } from './price-text.ts';
import { areaMicrodataFacts, jsonLdFacts, metaFacts, microdataFacts, pageMicrodataFacts, type StatedPrice } from './structured-data.ts';
import { pageTextView, type PageTextView } from './page-text.ts';
import { visibleText } from './visible-text.ts';

// A price target's value. Sources are tried in order of reliability; the
// first that names exactly one amount in the target's currency decides:
//   page scope:     JSON-LD, microdata, product meta tags, then the price
//                   nearest the product title (main-offer.ts), then the
//                   visible text (amounts next to a currency sign or code);
//   selector scope: microdata inside the element, then its visible text
//                   (of a range, "£6.95 - £9.95", the lower bound);
//                   a selected element without any currency sign may hold one
//                   bare number, read in the target's currency.
// Struck-through text (<del>, <s>) is an old price and never a candidate; of
// several amounts in the text, those its words show are no current price
// (a note in parentheses, "Was", "excl. VAT") are set aside (price-roles.ts).
// When no source decides, the most telling failure is reported: several
// different amounts (ambiguous) before amounts in another currency (mismatch)
// before nothing at all (not found).
// Amounts are never rounded: one with more decimals than the currency's minor
// unit (12.5 VND, 29.1583 GBP) is no value; when nothing else decides, the
// target reports price_ambiguous saying so.
// `decimal` undefined is the automatic reading (see number-text.ts): a lone
// separator before three digits groups thousands ("Rp 31.500", "1.727 Ft").

export type PriceOutcome =
  | { ok: true; minor: number; currency: string; reading: string | null }
  | { ok: false; code: 'price_ambiguous' | 'currency_mismatch' | 'price_not_found'; message: string };

type Verdict =
  | { kind: 'value'; minor: number; reading: string | null }
  | { kind: 'ambiguous'; amounts: string[] }
  | { kind: 'mismatch'; seen: string[] }
  | { kind: 'unfit'; amounts: string[] }
  | { kind: 'none' };

function judge(candidates: readonly StatedPrice[], currency: string, exponent: number): Verdict {
  if (candidates.length === 0) return { kind: 'none' };
  const ours = candidates.filter((c) => c.codes === null || c.codes.includes(currency));
  if (ours.length === 0) {
    return { kind: 'mismatch', seen: [...new Set(candidates.map((c) => (c.codes?.length ? c.codes.join('/') : 'an unknown currency')))] };
  }
  const minors = new Map<number, DecimalAmount>();
  const unfit: DecimalAmount[] = [];
  let reading: string | null = null;
  for (const c of ours) {
    const minor = toMinorUnits(c.amount, exponent);
    if (minor !== null) minors.set(minor, c.amount);
    else unfit.push(c.amount);
    reading ??= minor !== null ? (c.reading ?? null) : null;
  }
  const [only] = minors.keys();
  if (minors.size === 1 && only !== undefined) return { kind: 'value', minor: only, reading };
  if (minors.size === 0) return unfit.length > 0 ? { kind: 'unfit', amounts: [...new Set(unfit.map(decimalToString))] } : { kind: 'none' };
  return { kind: 'ambiguous', amounts: [...minors.values()].map(decimalToString) };
}

/**
 * A text amount as the currency's convention reads it when the automatic
 * reading had to settle a lone separator before three digits: in a currency
 * with three decimals (KWD, BHD, OMR) it is the decimal separator ("1.299 KWD"),
 * elsewhere it groups thousands ("Rp 31.500").
 */
function byConvention(
  amount: DecimalAmount,
  codes: readonly string[] | null,
  autoGrouped: DecimalHint | null,
  exponent: number,
): StatedPrice {
  if (autoGrouped === null) return { amount, codes };
  if (exponent !== 3) return { amount, codes, reading: `automatic reading: "${autoGrouped}" groups thousands` };
  const digits = amount.whole;
  const split = makeDecimal(digits.slice(0, -3), digits.slice(-3));
  return { amount: split, codes, reading: `automatic reading: "${autoGrouped}" is the decimal separator` };
}

function noted(price: StatedPrice, note: string | null): StatedPrice {
  if (note === null) return price;
  return { ...price, reading: price.reading ? `${price.reading}; ${note}` : note };
}

/** The text a page-scope target reads prices in: struck-through text and, as they list no item price, shipping rows left out. */
function pricesText(page: ParsedPage): PageTextView {
  const plain = pageTextView(page, 'plain');
  return pageTextView(page, 'without struck text and shipping rows', {
    skipStruck: true,
    skip: (el) => isShippingRow(el, (label) => plain.of(label)),
  });
}

/** The prices a text shows; `bareNumbers`: the text is a selected element's, where one number alone is a price. */
function textCandidates(text: string, decimal: DecimalHint | undefined, bareNumbers: boolean, exponent: number): StatedPrice[] {
  // a selected element showing a price range: its "from" price
  const range = bareNumbers ? findPriceRange(text, decimal) : null;
  if (range) return [byConvention(range.amount, range.currency?.codes ?? null, range.autoGrouped, exponent)];
  const found = findPriceMentions(text, decimal);
  const mentions = currentPrices(text, bareNumbers ? found : itemPrices(text, found));
  if (mentions.kept.length > 0 || !bareNumbers) {
    return mentions.kept.map((m) => noted(byConvention(m.amount, m.currency.codes, m.autoGrouped, exponent), mentions.note));
  }
  const bare = currentPrices(text, findAmounts(text, decimal));
  if (bare.kept.length === 0 && isFreeText(text)) return [{ amount: makeDecimal('0', ''), codes: null }];
  return bare.kept.map(({ amount, autoGrouped }) => noted(byConvention(amount, null, autoGrouped, exponent), bare.note));
}

/**
 * The page's structured data (JSON-LD, microdata, product meta tags): the
 * first source naming one amount decides, unless another source names a
 * different single amount (an auction's starting price in JSON-LD, its
 * current bid in the meta tags): then the sources contradict each other and
 * none decides.
 */
function structuredVerdict(page: ParsedPage, currency: string, exponent: number, decimal: DecimalHint | undefined): Verdict {
  const verdicts = [
    judge(jsonLdFacts(page).prices, currency, exponent),
    judge(pageMicrodataFacts(page, decimal).prices, currency, exponent),
    judge(metaFacts(page).prices, currency, exponent),
  ];
  const values = verdicts.filter((v) => v.kind === 'value');
  const [first] = values;
  if (first && values.every((v) => v.minor === first.minor)) return first;
  if (first) return { kind: 'ambiguous', amounts: values.map((v) => formatMinorUnits(v.minor, currency).split(' ')[0]!) };
  // the most telling failure, as extractPrice reports them
  for (const kind of ['ambiguous', 'unfit', 'mismatch'] as const) {
    const found = verdicts.find((v) => v.kind === kind);
    if (found) return found;
  }
  return { kind: 'none' };
}

/**
 * The price shown nearest the product title: in the title's smallest ancestor
 * holding a price in the target's currency (microdata first, then its visible
 * text). Several different amounts there leave it ambiguous: going further
 * out would only add other products' prices.
 */
function nearTitle(page: ParsedPage, currency: string, exponent: number, decimal: DecimalHint | undefined): Verdict {
  let outermost: Verdict = { kind: 'none' };
  const areas = areasAroundTitle(page);
  for (const area of areas) {
    for (const read of [
      () => areaMicrodataFacts(page, area, decimal).prices,
      () => textCandidates(pricesText(page).of(area), decimal, false, exponent),
    ]) {
      const verdict = judge(read(), currency, exponent);
      if (verdict.kind === 'value' || verdict.kind === 'ambiguous') return verdict;
      outermost = verdict;
    }
  }
  // the outermost area showing the whole page has given the whole page's verdict
  return areasCoverPage(page, areas) ? outermost : { kind: 'none' };
}

/** The whole page's visible text, unless the title's areas have read it already. */
function wholePage(page: ParsedPage, currency: string, exponent: number, decimal: DecimalHint | undefined): Verdict {
  if (areasCoverPage(page, areasAroundTitle(page))) return { kind: 'none' };
  return judge(textCandidates(pricesText(page).text, decimal, false, exponent), currency, exponent);
}

export function extractPrice(
  page: ParsedPage,
  roots: readonly AnyNode[] | null,
  currency: string | undefined,
  decimal: DecimalHint | undefined,
): PriceOutcome {
  const exponent = currency === undefined ? null : currencyExponent(currency);
  if (currency === undefined || exponent === null) {
    return { ok: false, code: 'price_not_found', message: 'the target names no ISO 4217 currency to read prices in' };
  }
  const judged = (read: () => StatedPrice[]) => (): Verdict => judge(read(), currency, exponent);
  const sources: (() => Verdict)[] = roots
    ? [
        judged(() => microdataFacts(roots, decimal).prices),
        judged(() => textCandidates(visibleText(roots, { skipStruck: true }), decimal, true, exponent)),
      ]
    : [
        () => structuredVerdict(page, currency, exponent, decimal),
        () => nearTitle(page, currency, exponent, decimal),
        () => wholePage(page, currency, exponent, decimal),
      ];
  const verdicts: Verdict[] = [];
  for (const source of sources) {
    const verdict = source();
    if (verdict.kind === 'value') {
      return { ok: true, minor: verdict.minor, currency, reading: verdict.reading };
    }
    verdicts.push(verdict);
  }
  const ambiguous = verdicts.find((v) => v.kind === 'ambiguous');
  if (ambiguous?.kind === 'ambiguous') {
    return {
      ok: false,
      code: 'price_ambiguous',
      message: `several different ${currency} prices found (${ambiguous.amounts.slice(0, 5).join(', ')}); choose the price element with a selector`,
    };
  }
  const unfit = verdicts.find((v) => v.kind === 'unfit');
  if (unfit?.kind === 'unfit') {
    const places = exponent === 1 ? '1 decimal place' : `${exponent} decimal places`;
    return {
      ok: false,
      code: 'price_ambiguous',
      message:
        `${unfit.amounts.slice(0, 5).join(', ')} has more decimals than ${currency} (${places}) and is not rounded; ` +
        'check the decimal separator',
    };
  }
  const mismatch = verdicts.find((v) => v.kind === 'mismatch');
  if (mismatch?.kind === 'mismatch') {
    return { ok: false, code: 'currency_mismatch', message: `prices found are in ${mismatch.seen.join(', ')}, not ${currency}` };
  }
  return { ok: false, code: 'price_not_found', message: `no ${currency} price found` };
}
