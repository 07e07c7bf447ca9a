import { IN_STOCK_PHRASES, OUT_OF_STOCK_PHRASES, type StockPhrase, type Strength } from './data/stock-phrases.ts';
import type { Availability } from './schema-availability.ts';

// Stock state from wording. Out-of-stock phrases are found first and blanked
// out, so in-stock wording inside them ("available" in "not available",
// "disponible" in "indisponible") never counts. Phrases match whole words:
// "0 in stock" does not match inside "10 in stock".

const WORD = /[\p{L}\p{N}]/u;
const UNSPACED_SCRIPT = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;

function normalise(text: string): string {
  return text.normalize('NFC').toLowerCase().replace(/[’ʼ]/gu, "'").replace(/[^\S\n]+/gu, ' ');
}

/** A phrase edge that is part of a word must not continue into the text's next character. */
function boundaryOk(phraseEdge: string, outside: string | undefined): boolean {
  if (outside === undefined || !WORD.test(phraseEdge) || UNSPACED_SCRIPT.test(phraseEdge)) return true;
  return !WORD.test(outside);
}

interface Found {
  strength: Strength;
}

// Longest first, so "notify me when available" is read before "notify me".
const byLength = (phrases: readonly StockPhrase[]) => [...phrases].sort((a, b) => b.phrase.length - a.phrase.length);
const OUT = byLength(OUT_OF_STOCK_PHRASES);
const IN = byLength(IN_STOCK_PHRASES);

/** Finds the phrases in `text`, replacing each match with spaces in the returned text. */
function findAndBlank(text: string, phrases: readonly StockPhrase[]): { found: Found[]; rest: string } {
  let rest = text;
  const found: Found[] = [];
  for (const { phrase, strength } of phrases) {
    const needle = normalise(phrase);
    let from = 0;
    for (let at = rest.indexOf(needle, from); at >= 0; at = rest.indexOf(needle, from)) {
      const end = at + needle.length;
      from = at + 1;
      if (!boundaryOk(needle[0], rest[at - 1]) || !boundaryOk(needle[needle.length - 1], rest[end])) continue;
      found.push({ strength });
      rest = rest.slice(0, at) + ' '.repeat(needle.length) + rest.slice(end);
    }
  }
  return { found, rest };
}

const RANK: Record<Strength, number> = { weak: 1, strong: 2 };

function strongest(found: readonly Found[]): number {
  return Math.max(0, ...found.map((f) => RANK[f.strength]));
}

/** The stock state the wording states, or null when it states none or contradicts itself. */
export function stockFromText(text: string): Availability | null {
  const out = findAndBlank(normalise(text), OUT);
  const inStock = findAndBlank(out.rest, IN);
  const outRank = strongest(out.found);
  const inRank = strongest(inStock.found);
  if (outRank === inRank) return null;
  return outRank > inRank ? 'out_of_stock' : 'in_stock';
}
