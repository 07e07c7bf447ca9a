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
const THRESHOLD_WORDS = 'over|above|from orders|orders?(?: over| above| of)?|spend|min|minimum|мин|минимум|заказ|qty|quantity';
// Chinese and Japanese write words without spaces: "購物車滿 490" (a cart of 490 or more).
const THRESHOLD_UNSPACED = '滿|满';
const THRESHOLD_BEFORE = new RegExp(`(?:(?:^|[^\\p{L}])(?:${THRESHOLD_WORDS})|${THRESHOLD_UNSPACED})\\.?:?\\s{0,2}\\p{Sc}?\\s{0,2}$`, 'iu');

/**
 * Whether the words right around the run say it is a date, a measure or a
 * threshold. `currencyAfter`: a currency is written right after the run
 * ("1.727 Ft", "1 KM"), so letters there are no unit.
 */
export function isNonPriceNumber(text: string, run: NumberRun, currencyAfter: boolean): boolean {
  const before = text.slice(Math.max(0, run.start - 24), run.start);
  const after = text.slice(run.end, run.end + 16);
  return (
    MONTH_BEFORE.test(before) ||
    MONTH_AFTER.test(after) ||
    (!currencyAfter && UNIT_AFTER.test(after)) ||
    THRESHOLD_AFTER.test(after) ||
    THRESHOLD_BEFORE.test(before)
  );
}
