import type { NumberRun } from './number-text.ts';

// Numbers that the words around them show are not prices, whatever currency
// is near: a date ("July, 2004", "3 März"), a measure ("16.00 ft", "2 kg"), or
// a threshold ("orders $49+", "min. order: 1", "over $50"). Reading them as a
// price would invent one.

const MONTHS = [
  'jan|january|feb|february|mar|march|apr|april|may|jun|june|jul|july|aug|august',
  'sep|sept|september|oct|october|nov|november|dec|december',
  'januar|februar|märz|mai|juni|juli|oktober|dezember',
  'janvier|février|mars|avril|juin|juillet|août|septembre|octobre|novembre|décembre',
  'enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|octubre|noviembre|diciembre',
  'января|февраля|марта|апреля|мая|июня|июля|августа|сентября|октября|ноября|декабря',
].join('|');
const MONTH_BEFORE = new RegExp(`(?:^|[^\\p{L}])(?:${MONTHS})\\.?,?\\s{1,2}$`, 'iu');
const MONTH_AFTER = new RegExp(`^\\.?\\s{1,2}(?:${MONTHS})(?:[^\\p{L}]|$)`, 'iu');

// Units of length, area, weight, volume, data and power, written right after
// the number as units are (case matters: "1 KM" is a currency, "in" is left
// out as it is also a word: "$49.99 in stock").
const UNITS = [
  'mm|cm|m|km|inch|inches|ft|feet|foot|yd|mi|sq|m²|kg|g|mg|lb|lbs|oz|ml|cl|litres?|liters?|gal',
  'GB|TB|MB|KB|MHz|GHz|kW|W|mAh|pcs|pieces|items',
].join('|');
const UNIT_AFTER = new RegExp(`^\\s?(?:${UNITS})(?![\\p{L}\\p{N}])`, 'u');

// "$49+", "$590起" (from $590 up); not "€6.56 + VAT"
const THRESHOLD_AFTER = /^(?:\+(?!\s*\p{L})|\s?起)/u;
const THRESHOLD_WORDS = [
  'over|above|from orders|order|orders|order over|orders over|order above|orders above|order of|orders of',
  'spend|min|minimum|мин|минимум|заказ|qty|quantity',
].join('|');
// Chinese and Japanese write words without spaces: "購物車滿 490" (a cart of 490 or more).
const THRESHOLD_UNSPACED = '滿|满';
const THRESHOLD_BEFORE = new RegExp(`(?:(?:^|[^\\p{L}])(?:${THRESHOLD_WORDS})|${THRESHOLD_UNSPACED})\\.?:?\\s{0,2}\\p{Sc}?\\s{0,2}$`, 'iu');

// Each expression is tried only where it can match at all, judged from the
// few characters next to the number: most numbers on a shop page (a price
// after its sign, a count after a tag's text) are next to no such word, and
// the five expressions asked of every number were a third of a price
// target's time on a page with many numbers (decision record 0088). The
// expressions decide.

/** Whether the UTF-16 unit is one \s matches (WhiteSpace or LineTerminator). */
function isSpace(unit: number): boolean {
  return (
    unit === 32 ||
    (unit >= 9 && unit <= 13) ||
    unit === 0xa0 ||
    unit === 0x1680 ||
    (unit >= 0x2000 && unit <= 0x200a) ||
    unit === 0x2028 ||
    unit === 0x2029 ||
    unit === 0x202f ||
    unit === 0x205f ||
    unit === 0x3000 ||
    unit === 0xfeff
  );
}

/** A class of the characters the alternatives start (or end) with, matched as `flags` match them (case folded with i). */
function edgeClass(alternatives: string, edge: 'first' | 'last', flags: string): RegExp {
  const chars = alternatives.split('|').map((word) => (edge === 'first' ? word.charAt(0) : word.charAt(word.length - 1)));
  return new RegExp(`[${[...new Set(chars)].join('').replace(/[\]\\^-]/gu, '\\$&')}]`, flags);
}

const MONTH_FIRST = edgeClass(MONTHS, 'first', 'iu');
const MONTH_LAST = edgeClass(MONTHS, 'last', 'iu');
const UNIT_FIRST = edgeClass(UNITS, 'first', 'u');
const THRESHOLD_LAST = edgeClass(`${THRESHOLD_WORDS}|${THRESHOLD_UNSPACED}`, 'last', 'iu');
const CURRENCY_SIGN = /\p{Sc}/u;

/** The place before at most `most` characters \s matches that end at `end`. */
function backOverSpaces(text: string, end: number, most: number): number {
  let at = end;
  while (at > end - most && at > 0 && isSpace(text.charCodeAt(at - 1))) at--;
  return at;
}

/** The character (one code point: one or two units) that ends at `at`; '' at the start. */
function charBefore(text: string, at: number): string {
  const unit = text.charCodeAt(at - 1);
  const pair = unit >= 0xdc00 && unit <= 0xdfff && at >= 2 && (text.charCodeAt(at - 2) & 0xfc00) === 0xd800;
  return text.slice(pair ? at - 2 : Math.max(0, at - 1), at);
}

/** Whether a month may end right before MONTH_BEFORE's tail (\.?,?\s{1,2}) at the end of `before`. */
function mayFollowMonth(before: string): boolean {
  let at = backOverSpaces(before, before.length, 2);
  if (at === before.length) return false;
  if (before.charCodeAt(at - 1) === 44) at--;
  if (before.charCodeAt(at - 1) === 46) at--;
  return MONTH_LAST.test(charBefore(before, at));
}

/** Whether a threshold's word may end right before THRESHOLD_BEFORE's tail (\.?:?\s{0,2}\p{Sc}?\s{0,2}) at the end of `before`. */
function mayFollowThresholdWord(before: string): boolean {
  let at = backOverSpaces(before, before.length, 2);
  const sign = charBefore(before, at);
  if (CURRENCY_SIGN.test(sign)) at -= sign.length;
  at = backOverSpaces(before, at, 2);
  if (before.charCodeAt(at - 1) === 58) at--;
  if (before.charCodeAt(at - 1) === 46) at--;
  return THRESHOLD_LAST.test(charBefore(before, at));
}

/** Whether a month may follow as MONTH_AFTER reads it: \.?\s{1,2} and a month's first letter */
function mayPrecedeMonth(after: string): boolean {
  const space = after.charCodeAt(0) === 46 ? 1 : 0;
  if (!isSpace(after.charCodeAt(space))) return false;
  const month = isSpace(after.charCodeAt(space + 1)) ? space + 2 : space + 1;
  return MONTH_FIRST.test(after.charAt(month));
}

/** Whether a unit may follow as UNIT_AFTER reads it: \s? and a unit's first letter */
function mayPrecedeUnit(after: string): boolean {
  return UNIT_FIRST.test(after.charAt(isSpace(after.charCodeAt(0)) ? 1 : 0));
}

/** Whether `after` may start as THRESHOLD_AFTER's does: "+", "起" or a space and "起" */
function mayPrecedeThreshold(after: string): boolean {
  const first = after.charCodeAt(0);
  return first === 43 || first === 0x8d77 || (isSpace(first) && after.charCodeAt(1) === 0x8d77);
}

/** One rule: the expression that decides, asked of the text on one side of the number only where it may match. */
export interface ContextRule {
  readonly side: 'before' | 'after';
  readonly expression: RegExp;
  /** false only where the expression cannot match */
  mayMatch(side: string): boolean;
  /** a currency written right after the number makes the letters there no unit */
  readonly notBeforeCurrency?: boolean;
}

export const CONTEXT_RULES: readonly ContextRule[] = [
  { side: 'before', expression: MONTH_BEFORE, mayMatch: mayFollowMonth },
  { side: 'after', expression: MONTH_AFTER, mayMatch: mayPrecedeMonth },
  { side: 'after', expression: UNIT_AFTER, mayMatch: mayPrecedeUnit, notBeforeCurrency: true },
  { side: 'after', expression: THRESHOLD_AFTER, mayMatch: mayPrecedeThreshold },
  { side: 'before', expression: THRESHOLD_BEFORE, mayMatch: mayFollowThresholdWord },
];

/** The text a rule reads on each side of the run. */
export function contextOf(text: string, run: NumberRun): { before: string; after: string } {
  return { before: text.slice(Math.max(0, run.start - 24), run.start), after: text.slice(run.end, run.end + 16) };
}

/**
 * Whether the words right around the run say it is a date, a measure or a
 * threshold. `currencyAfter`: a currency is written right after the run
 * ("1.727 Ft", "1 KM"), so letters there are no unit.
 */
export function isNonPriceNumber(text: string, run: NumberRun, currencyAfter: boolean): boolean {
  const context = contextOf(text, run);
  return CONTEXT_RULES.some((rule) => {
    if (rule.notBeforeCurrency && currencyAfter) return false;
    const side = context[rule.side];
    return rule.mayMatch(side) && rule.expression.test(side);
  });
}
