import { IN_STOCK_PHRASES, OUT_OF_STOCK_PHRASES, type StockPhrase, type Strength } from './data/stock-phrases.ts';
import type { Availability } from '../observed-value.ts';
import { partitionPoint } from './partition-point.ts';

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
    .replace(/[^\S\n]+/gu, ' ');
}

const APOSTROPHE = /['’ʼ]/u;

/**
 * The phrase as a text may spell it: each apostrophe any of the three pages
 * show. A text is searched as it is lowercased: making its apostrophes one
 * was a second copy of a whole page's text, fresh memory whose first touch is
 * dear on some virtual machines (decision record 0087).
 */
function spellings(phrase: string): string[] {
  const at = phrase.search(APOSTROPHE);
  if (at < 0) return [phrase];
  const rest = spellings(phrase.slice(at + 1));
  return ["'", '’', 'ʼ'].flatMap((apostrophe) => rest.map((after) => phrase.slice(0, at) + apostrophe + after));
}

/** A phrase edge that is part of a word must not continue into the text's next character. */
function boundaryOk(phraseEdge: string, outside: string | undefined): boolean {
  if (outside === undefined || !WORD.test(phraseEdge) || UNSPACED_SCRIPT.test(phraseEdge)) return true;
  return !WORD.test(outside);
}

interface Found {
  strength: Strength;
}

// Normalised once, in every spelling of their apostrophes; longest first, so "notify me when available" is read
// before "notify me".
const byLength = (phrases: readonly StockPhrase[]) => {
  const spelt = new Map(phrases.flatMap(({ phrase, strength }) => spellings(normalise(phrase)).map((p) => [p, strength] as const)));
  return [...spelt].map(([phrase, strength]) => ({ phrase, strength })).sort((a, b) => b.phrase.length - a.phrase.length);
};
const OUT = byLength(OUT_OF_STOCK_PHRASES);
const IN = byLength(IN_STOCK_PHRASES);
// Where any phrase starts, found in one pass of one expression (stepping one
// place past each match, so overlapping phrases are found too): most texts (a
// page's areas around its title, most elements) hold none, and each phrase is
// then looked for at those places only, not searched for through the text.
const ANY_PHRASE = new RegExp([...OUT, ...IN].map(({ phrase }) => phrase.replace(/[.*+?^${}()|[\]\\]/gu, '\\$&')).join('|'), 'gu');

/** Where any phrase starts in the text, in order. */
function phraseStarts(text: string): number[] {
  const starts: number[] = [];
  ANY_PHRASE.lastIndex = 0;
  for (let found = ANY_PHRASE.exec(text); found !== null; found = ANY_PHRASE.exec(text)) {
    starts.push(found.index);
    ANY_PHRASE.lastIndex = found.index + 1;
  }
  return starts;
}

/**
 * Finds the phrases in `text` (each at the places `starts` lists) where it is
 * not yet `taken`, and marks what they cover as taken (a mask, not a copy of
 * the text per match).
 */
function findAndTake(text: string, starts: readonly number[], taken: Uint8Array, phrases: readonly StockPhrase[]): Found[] {
  const found: Found[] = [];
  for (const { phrase: needle, strength } of phrases) {
    for (const at of starts) {
      if (!text.startsWith(needle, at)) continue;
      const end = at + needle.length;
      if (!boundaryOk(needle.charAt(0), text[at - 1]) || !boundaryOk(needle.charAt(needle.length - 1), text[end])) continue;
      if (taken.subarray(at, end).includes(1)) continue;
      found.push({ strength });
      taken.fill(1, at, end);
    }
  }
  return found;
}

const NO_WORDING: StockWording = Object.freeze({ out: 0, in: 0 });

/** A stretch shorter than this part of the whole text is searched for phrases on its own. */
const SHORT_STRETCHES = 8;

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
  return normalisedWording(normalise(text));
}

/** `starts`: where phrases may start in the text (every place one does, and any others), when already known */
function normalisedWording(normalised: string, starts: readonly number[] = phraseStarts(normalised)): StockWording {
  if (starts.length === 0) return NO_WORDING;
  const taken = new Uint8Array(normalised.length);
  const out = strongest(findAndTake(normalised, starts, taken, OUT));
  return { out, in: strongest(findAndTake(normalised, starts, taken, IN)) };
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

/** Whether the stretch starts with the second half of a surrogate pair or ends with the first. */
function splitsPair(stretch: string): boolean {
  const first = stretch.charCodeAt(0);
  const last = stretch.charCodeAt(stretch.length - 1);
  return (first >= 0xdc00 && first <= 0xdfff) || (last >= 0xd800 && last <= 0xdbff);
}

/**
 * The wording of a visible text (visible-text.ts: whitespace already collapsed
 * to single spaces and line breaks) and of stretches of it, the text
 * normalised for the phrase search once instead of each stretch on its own (a
 * page's controls and the nested areas around its title are stretches of its
 * text). A stretch's normalised text is the same stretch of the normalised
 * text when lowercasing maps each character alone to one character (no "İ",
 * no "Σ", whose lowercase depends on the letter after it), the stretch is in
 * NFC and does not split a surrogate pair; any other stretch is normalised on
 * its own. Where phrases start is searched once: in a short stretch (the
 * innermost areas around the title) on its own, in a long one (an outer area,
 * the page) through the whole text, whose places every later stretch then
 * looks up; places() searches the whole text at once.
 */
export class StockText {
  private readonly lower: string;
  private readonly slicing: boolean;
  private readonly wording = new Map<string, StockWording>();
  /** where a phrase starts in `lower`, in order; null until a long stretch or places() needs them */
  private phraseStarts: number[] | null = null;

  constructor(private readonly text: string) {
    this.lower = text.toLowerCase();
    this.slicing = this.lower.length === text.length && !text.includes('\u03a3');
  }

  /** stockWording(text), each distinct text judged once; `starts` as normalisedWording takes them */
  private judged(normalised: string, starts?: readonly number[]): StockWording {
    let wording = this.wording.get(normalised);
    if (wording === undefined) {
      wording = normalisedWording(normalised, starts);
      this.wording.set(normalised, wording);
    }
    return wording;
  }

  /**
   * Where phrases may start in lower[from, to), counted from `from`: every place one starts within the stretch (and
   * those of phrases running on past its end, which a search of the stretch alone does not find and nothing reads).
   */
  private startsIn(from: number, to: number): readonly number[] {
    if (this.phraseStarts === null && (to - from) * SHORT_STRETCHES < this.lower.length) {
      return phraseStarts(this.lower.slice(from, to));
    }
    this.phraseStarts ??= phraseStarts(this.lower);
    const starts = this.phraseStarts;
    const first = partitionPoint(starts.length, (i) => starts[i]! < from);
    const end = partitionPoint(starts.length, (i) => starts[i]! < to);
    return first === end ? [] : starts.slice(first, end).map((at) => at - from);
  }

  /**
   * Every place in the text where a phrase starts (and no phrase of of() is found elsewhere; at each place one at
   * most, the text it covers taken), or null when lowercasing moves or changes the text's places.
   */
  places(): readonly number[] | null {
    if (!this.slicing) return null;
    return (this.phraseStarts ??= phraseStarts(this.lower));
  }

  /** stockWording(text.slice(from, to)) */
  of(from: number, to: number): StockWording {
    if (!this.slicing) return this.judged(normalise(this.text.slice(from, to)));
    // A stretch where no phrase starts says nothing, whether sliceable or not: a surrogate split at its edge changes
    // no phrase inside it, and a stretch of a visible text (whitespace collapsed, in NFC) is in NFC itself.
    const starts = this.startsIn(from, to);
    if (starts.length === 0) return NO_WORDING;
    const stretch = this.text.slice(from, to);
    const sliceable = !splitsPair(stretch) && stretch.normalize('NFC') === stretch;
    return sliceable ? this.judged(this.lower.slice(from, to), starts) : this.judged(normalise(stretch));
  }

  /** stockWording(text) */
  whole(): StockWording {
    return this.of(0, this.text.length);
  }
}
