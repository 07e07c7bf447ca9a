import { findCurrencyMentions, principalMention, type CurrencyMention } from './currency-text.ts';
import { makeDecimal, type DecimalAmount } from './money.ts';
import { findNumberRuns, isPercentage, type DecimalHint, type NumberRun } from './number-text.ts';

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
  return findNumberRuns(text, decimal).filter((run) => !isPercentage(text, run));
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

/** The currency written next to a number: the closer side, the one before it on a tie. */
function attachedCurrency(text: string, run: NumberRun, mentions: readonly CurrencyMention[]): CurrencyMention | null {
  const gap = (from: number, to: number) => {
    const between = text.slice(from, to);
    return /^[ \u00a0\u202f\u2009]{0,2}$/u.test(between) ? between.length : Infinity;
  };
  let best: CurrencyMention | null = null;
  let bestGap = Infinity;
  for (const mention of mentions) {
    const distance =
      mention.end <= run.start ? gap(mention.end, run.start) : mention.start >= run.end ? gap(run.end, mention.start) + 0.5 : 0;
    if (distance < bestGap) {
      best = mention;
      bestGap = distance;
    }
  }
  return best;
}

export function findPriceMentions(text: string, decimal?: DecimalHint): PriceMention[] {
  const runs = amountRuns(text, decimal);
  const mentions = findCurrencyMentions(text, runs);
  const found: PriceMention[] = [];
  for (const run of runs) {
    const currency = run.amount && attachedCurrency(text, run, mentions);
    if (run.amount && currency) found.push({ amount: run.amount, currency });
  }
  return found;
}

/** Every readable number in the text, currency or not (for a selected price element without a sign). */
export function findAmounts(text: string, decimal?: DecimalHint): DecimalAmount[] {
  return amountRuns(text, decimal).flatMap((run) => (run.amount ? [run.amount] : []));
}
