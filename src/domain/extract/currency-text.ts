import { CURRENCY_SIGNS, HISTORIC_CODES, type CurrencySign } from './data/currency-signs.ts';
import { ISO_4217_EXPONENTS } from './data/iso-4217.ts';
import type { NumberRun } from './number-text.ts';

// Finds currency signs and codes in text: "€", "US$", "Kč", "EUR", "pln".
// At each position the longest sign wins ("US$" over "$", "CUC$" over "CUC").
// Signs made of letters need a word boundary, so "Eur." in "Ph. Eur." or the
// "ALL" in "INSTALL" are not currencies; ISO codes count when written all in
// capitals anywhere, or all in lower case next to a number ("140,00 pln").

export interface CurrencyMention {
  readonly start: number;
  readonly end: number;
  /** as written */
  readonly text: string;
  /** ISO codes it may stand for; empty for currencies without one */
  readonly codes: readonly string[];
}

const LETTER = /\p{L}/u;
const HISTORIC = new Set(HISTORIC_CODES);

const SIGNS_BY_FIRST = new Map<string, CurrencySign[]>();
for (const sign of [...CURRENCY_SIGNS].sort((a, b) => b.sign.length - a.sign.length)) {
  const first = sign.sign.charAt(0);
  const keys = sign.fold ? [first.toLowerCase(), first.toUpperCase()] : [first];
  for (const key of new Set(keys)) SIGNS_BY_FIRST.set(key, [...(SIGNS_BY_FIRST.get(key) ?? []), sign]);
}

function isLetter(ch: string | undefined): boolean {
  return ch !== undefined && LETTER.test(ch);
}

const GAP = /^[ \u00a0\u202f\u2009]{0,2}$/u;

/** The first run (runs are in text order) that ends after `offset`, by binary search. */
function firstRunEndingAfter(runs: readonly NumberRun[], offset: number): number {
  let low = 0;
  let high = runs.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    // low <= mid < high <= runs.length
    if (runs[mid]!.end <= offset) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** Whether [start, end) touches a number run, separated by at most two spaces. */
function nextToNumber(text: string, start: number, end: number, runs: readonly NumberRun[]): boolean {
  const i = firstRunEndingAfter(runs, start);
  const before = runs[i - 1];
  const after = runs[i];
  return (
    (before !== undefined && GAP.test(text.slice(before.end, start))) ||
    (after !== undefined && (after.start < end || GAP.test(text.slice(end, after.start))))
  );
}

function signAt(text: string, at: number): { sign: CurrencySign; length: number } | null {
  for (const sign of SIGNS_BY_FIRST.get(text.charAt(at)) ?? []) {
    const candidate = text.slice(at, at + sign.sign.length);
    const same = sign.fold ? candidate.toLowerCase() === sign.sign.toLowerCase() : candidate === sign.sign;
    if (!same) continue;
    if (isLetter(sign.sign[0]) && isLetter(text[at - 1])) continue;
    if (!sign.prefix && isLetter(sign.sign[sign.sign.length - 1]) && isLetter(text[at + sign.sign.length])) continue;
    return { sign, length: sign.sign.length };
  }
  return null;
}

function codeAt(text: string, at: number): { code: string; lower: boolean } | null {
  const word = text.slice(at, at + 3);
  if (!/^(?:[A-Z]{3}|[a-z]{3})$/u.test(word) || isLetter(text[at - 1]) || isLetter(text[at + 3])) return null;
  const code = word.toUpperCase();
  if (Object.hasOwn(ISO_4217_EXPONENTS, code)) return { code, lower: word !== code };
  return HISTORIC.has(code) && word === code ? { code, lower: false } : null;
}

const isAsciiLetter = (c: number): boolean => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);

/** The unit each sign starts with, in each case it is matched in (the keys signAt looks signs up by). */
const SIGN_FIRST_UNITS = new Set([...SIGNS_BY_FIRST.keys()].map((first) => first.charCodeAt(0)));

/**
 * Whether no sign or code can start at `at`, judged by the characters there alone: past ASCII, only a sign that starts
 * with that very unit (codes are ASCII letters); every sign that starts with an ASCII character starts with "$" or a
 * letter, and one starting with a letter, like a code, never follows a letter. A page's text is mostly such places
 * (on a page in Korean or Russian nearly every one): the full look (slices and an expression at each place) is kept
 * for the rest.
 */
function noMentionAt(text: string, at: number): boolean {
  const c = text.charCodeAt(at);
  if (c >= 128) return !SIGN_FIRST_UNITS.has(c);
  if (!isAsciiLetter(c)) return c !== 36;
  return at > 0 && isAsciiLetter(text.charCodeAt(at - 1));
}

/** Currency mentions in order; `runs` are the text's numbers, for the signs that only count next to one. */
export function findCurrencyMentions(text: string, runs: readonly NumberRun[]): CurrencyMention[] {
  const mentions: CurrencyMention[] = [];
  const whole = text.trim();
  let at = 0;
  while (at < text.length) {
    if (noMentionAt(text, at)) {
      at++;
      continue;
    }
    const sign = signAt(text, at);
    const code = codeAt(text, at);
    const signLength = sign?.length ?? 0;
    let mention: CurrencyMention | null = null;
    if (sign && signLength >= (code ? 3 : 0)) {
      const end = at + signLength;
      if (!sign.sign.near || whole === text.slice(at, end) || nextToNumber(text, at, end, runs)) {
        mention = { start: at, end, text: text.slice(at, end), codes: sign.sign.codes };
      }
    }
    if (!mention && code && (!code.lower || nextToNumber(text, at, at + 3, runs))) {
      const known = Object.hasOwn(ISO_4217_EXPONENTS, code.code) && ISO_4217_EXPONENTS[code.code] !== null;
      mention = { start: at, end: at + 3, text: text.slice(at, at + 3), codes: known ? [code.code] : [] };
    }
    if (mention) {
      mentions.push(mention);
      at = mention.end;
    } else {
      at++;
    }
  }
  return mentions;
}

/**
 * The mention that names the currency of a price string: the first one,
 * except that a bare "$" gives way to anything more specific ("SGD4.90 $",
 * "$1,190.00 AUD").
 */
export function principalMention(mentions: readonly CurrencyMention[]): CurrencyMention | null {
  return mentions.find((m) => m.text !== '$') ?? mentions[0] ?? null;
}
