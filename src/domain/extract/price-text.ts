import { findCurrencyMentions, principalMention, type CurrencyMention } from './currency-text.ts';
import { compareDecimals, makeDecimal, type DecimalAmount } from './money.ts';
import { findNumberRuns, isPercentage, type DecimalHint, type NumberRun } from './number-text.ts';
import { isNonPriceNumber } from './price-context.ts';

// Prices in text. Two readings:
// * parsePriceText reads one price string (a price element's text): its first
//   number is the amount, its currency sign or code names the currency, and a
//   nearby label (`currencyHint`, e.g. "Price: €") is consulted when the string
//   itself shows none;
// * findPriceMentions lists every number in a longer text that carries a
//   currency next to it — the candidates a page-scope target chooses from.

export interface PriceText {
  amount: DecimalAmount | null;
  currency: CurrencyMention | null;
}

export interface PriceMention {
  amount: DecimalAmount;
  currency: CurrencyMention;
  /** see NumberRun.autoGrouped */
  autoGrouped: DecimalHint | null;
  /** offsets of the amount with its currency (end exclusive) */
  start: number;
  end: number;
}

/** A number read without a currency, and where it is. */
export interface BareAmount {
  amount: DecimalAmount;
  autoGrouped: DecimalHint | null;
  start: number;
  end: number;
}

export interface PriceTextOptions {
  decimal?: DecimalHint;
  currencyHint?: string | null;
}

// "Free!" as the whole price is an amount of zero; "free shipping" is not.
const FREE_WORDS = new Set(['free', 'gratis', 'gratuit', 'gratuito', 'kostenlos', 'бесплатно']);

export function isFreeText(text: string): boolean {
  return FREE_WORDS.has(text.toLowerCase().replace(/[^\p{L}]+/gu, ''));
}

function amountRuns(text: string, decimal: DecimalHint | undefined): NumberRun[] {
  const runs = findNumberRuns(text, decimal);
  const currencyStarts = new Set(findCurrencyMentions(text, runs).map((m) => m.start));
  const currencyAfter = (run: NumberRun): boolean => {
    const gap = /^[ \u00a0\u202f\u2009]?/u.exec(text.slice(run.end))![0].length;
    return currencyStarts.has(run.end + gap);
  };
  return runs.filter((run) => !isPercentage(text, run) && !isNonPriceNumber(text, run, currencyAfter(run)));
}

function currencyIn(text: string, decimal: DecimalHint | undefined): CurrencyMention | null {
  return principalMention(findCurrencyMentions(text, findNumberRuns(text, decimal)));
}

export function parsePriceText(text: string | null, options: PriceTextOptions = {}): PriceText {
  const runs = text === null ? [] : amountRuns(text, options.decimal);
  const first = runs.find((run) => run.amount !== null);
  const amount = first?.amount ?? (text !== null && isFreeText(text) ? makeDecimal('0', '') : null);
  const currency =
    (text === null ? null : principalMention(findCurrencyMentions(text, runs))) ??
    (options.currencyHint ? currencyIn(options.currencyHint, options.decimal) : null);
  return { amount, currency };
}

const NEAR = /^[ \u00a0\u202f\u2009]{0,2}$/u;

interface Side {
  mention: CurrencyMention;
  gap: number;
}

/**
 * The currency written next to each number: inside it ("35€99"), or at most
 * two spaces before or after it; the closer side wins, the one before on a tie.
 * A sign stands for one amount: when the numbers on both sides of it would
 * take it, the closer keeps it and the other takes its own other side or none
 * ("1250€ 600" is 1250 EUR and a bare 600); at equal distance both keep it.
 * Mentions and runs are both in text order, so one forward pass pairs them.
 */
function attachCurrencies(text: string, runs: readonly NumberRun[], mentions: readonly CurrencyMention[]): (CurrencyMention | null)[] {
  let next = 0;
  const sides = runs.map((run) => {
    while (next < mentions.length && mentions[next]!.end <= run.start) next++;
    const before = mentions[next - 1];
    const after = mentions[next];
    if (after && after.start < run.end) return { inside: after, before: null, after: null };
    return {
      inside: null,
      before: before && NEAR.test(text.slice(before.end, run.start)) ? { mention: before, gap: run.start - before.end } : null,
      after: after && NEAR.test(text.slice(run.end, after.start)) ? { mention: after, gap: after.start - run.end } : null,
    };
  });
  const closer = (a: Side | null, b: Side | null): Side | null => (a && (!b || a.gap <= b.gap) ? a : b);
  const chosen = sides.map((side) => (side.inside ? null : closer(side.before, side.after)));
  return sides.map((side, i) => {
    const mine = chosen[i];
    if (side.inside || !mine) return side.inside;
    // the neighbour on the far side of the chosen sign, if it takes the sign too and is closer to it
    const rival = mine === side.after ? chosen[i + 1] : chosen[i - 1];
    if (rival?.mention !== mine.mention || rival.gap >= mine.gap) return mine.mention;
    const other = mine === side.after ? side.before : side.after;
    return other?.mention ?? null;
  });
}

export function findPriceMentions(text: string, decimal?: DecimalHint): PriceMention[] {
  const runs = amountRuns(text, decimal);
  const mentions = findCurrencyMentions(text, runs);
  const currencies = attachCurrencies(text, runs, mentions);
  const found: PriceMention[] = [];
  runs.forEach((run, i) => {
    const currency = currencies[i];
    if (!run.amount || !currency) return;
    const start = Math.min(run.start, currency.start);
    const end = Math.max(run.end, currency.end);
    found.push({ amount: run.amount, currency, autoGrouped: run.autoGrouped, start, end });
  });
  return found;
}

export interface PriceRange {
  /** the lower bound */
  amount: DecimalAmount;
  /** the currency written at either bound, null when neither has one */
  currency: CurrencyMention | null;
  autoGrouped: DecimalHint | null;
}

// "£6.95 - £9.95", "841,00 zł – 995,00 zł", "From 26 to 50 €": between the
// two amounts only a dash or "to" (and the currency of either).
const RANGE_JOIN = /^\s*(?:[-–—]|to|bis|à|a|до)\s*$/iu;

/**
 * A text whose only amounts are the two bounds of a range, written low to
 * high: its price is the lower bound, the "from" price. Null for any other text.
 */
export function findPriceRange(text: string, decimal?: DecimalHint): PriceRange | null {
  const runs = amountRuns(text, decimal);
  const [lower, upper] = runs;
  if (runs.length !== 2 || !lower?.amount || !upper?.amount) return null;
  const mentions = findCurrencyMentions(text, runs);
  const between = mentions.reduce(
    (gap, m) => (m.start >= lower.end && m.end <= upper.start ? gap.replace(m.text, '') : gap),
    text.slice(lower.end, upper.start),
  );
  if (!RANGE_JOIN.test(between)) return null;
  const [first, second] = attachCurrencies(text, runs, mentions);
  if (first && second && first.text !== second.text) return null;
  // a range is written from low to high: "25-09" is no range
  if (compareDecimals(lower.amount, upper.amount) >= 0) return null;
  return { amount: lower.amount, currency: first ?? second ?? null, autoGrouped: lower.autoGrouped };
}

/** Every readable number in the text, currency or not (for a selected price element without a sign). */
export function findAmounts(text: string, decimal?: DecimalHint): BareAmount[] {
  return amountRuns(text, decimal).flatMap(({ amount, autoGrouped, start, end }) => (amount ? [{ amount, autoGrouped, start, end }] : []));
}
