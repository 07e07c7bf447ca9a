import { IN_STOCK_PHRASES, OUT_OF_STOCK_PHRASES, type StockPhrase, type Strength } from './data/stock-phrases.ts';
import type { Availability } from '../observed-value.ts';

// Stock state from wording. Out-of-stock phrases are found first and their
// text set aside, so in-stock wording inside them ("available" in "not available",
// "disponible" in "indisponible") never counts. Phrases match whole words:
// "0 in stock" does not match inside "10 in stock".

const WORD = /[\p{L}\p{N}]/u;
const UNSPACED_SCRIPT = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;

function normalise(text: string): string {
  return text
    .normalize('NFC')
    .toLowerCase()
    .replace(/[’ʼ]/gu, "'")
    .replace(/[^\S\n]+/gu, ' ');
}

/** A phrase edge that is part of a word must not continue into the text's next character. */
function boundaryOk(phraseEdge: string, outside: string | undefined): boolean {
  if (outside === undefined || !WORD.test(phraseEdge) || UNSPACED_SCRIPT.test(phraseEdge)) return true;
  return !WORD.test(outside);
}

interface Found {
  strength: Strength;
}

// Normalised once; longest first, so "notify me when available" is read before "notify me".
const byLength = (phrases: readonly StockPhrase[]) =>
  phrases.map((p) => ({ phrase: normalise(p.phrase), strength: p.strength })).sort((a, b) => b.phrase.length - a.phrase.length);
const OUT = byLength(OUT_OF_STOCK_PHRASES);
const IN = byLength(IN_STOCK_PHRASES);
// One pass telling whether any phrase occurs at all: most texts (a page's
// areas around its title, most elements) hold none, and a phrase-by-phrase
// search of a long text costs a scan per phrase.
const ANY_PHRASE = new RegExp([...OUT, ...IN].map(({ phrase }) => phrase.replace(/[.*+?^${}()|[\]\\]/gu, '\\$&')).join('|'), 'u');

/**
 * Finds the phrases in `text` where it is not yet `taken`, and marks what they
 * cover as taken (a mask, so long pages cost one pass per phrase, not a copy
 * of the text per match).
 */
function findAndTake(text: string, taken: Uint8Array, phrases: readonly StockPhrase[]): Found[] {
  const found: Found[] = [];
  for (const { phrase: needle, strength } of phrases) {
    for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + 1)) {
      const end = at + needle.length;
      if (!boundaryOk(needle.charAt(0), text[at - 1]) || !boundaryOk(needle.charAt(needle.length - 1), text[end])) continue;
      if (taken.subarray(at, end).includes(1)) continue;
      found.push({ strength });
      taken.fill(1, at, end);
    }
  }
  return found;
}

const RANK: Record<Strength, number> = { weak: 1, strong: 2 };

function strongest(found: readonly Found[]): number {
  return Math.max(0, ...found.map((f) => RANK[f.strength]));
}

/** How strongly the text's wording says out of stock and in stock (0: not at all). */
export interface StockWording {
  out: number;
  in: number;
}

export function stockWording(text: string): StockWording {
  const normalised = normalise(text);
  if (!ANY_PHRASE.test(normalised)) return { out: 0, in: 0 };
  const taken = new Uint8Array(normalised.length);
  const out = strongest(findAndTake(normalised, taken, OUT));
  return { out, in: strongest(findAndTake(normalised, taken, IN)) };
}

/** The state the wording states, or null when it states none or contradicts itself. */
export function stockFromWording(wording: StockWording): Availability | null {
  if (wording.out === wording.in) return null;
  return wording.out > wording.in ? 'out_of_stock' : 'in_stock';
}

/** The stock state the wording states, or null when it states none or contradicts itself. */
export function stockFromText(text: string): Availability | null {
  return stockFromWording(stockWording(text));
}
