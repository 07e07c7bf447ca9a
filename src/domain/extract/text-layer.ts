import { normaliseLines } from './visible-text.ts';
import { partitionPoint } from './partition-point.ts';
import { BlockList } from './block-list.ts';

// A raw visible text normalised once (normaliseLines), from which the
// normalised text of any stretch of it is a slice: a page's areas, controls
// and the page itself read one text instead of each walking and normalising
// its own. Normalising keeps every non-space character and turns each run of
// whitespace between two of them into one "\n" (the run holds a line break)
// or one " "; so a stretch's text is the slice between where its first and
// last characters land, less the one separator either end may carry.
// NFC normalisation (part of normaliseLines) can join characters across a
// stretch's edge and change lengths: a raw text that NFC changes, or a
// stretch whose edge is a character that composes with the one before it (a
// combining mark, a Hangul vowel or final consonant), is normalised on its own.

const JOINS_PREVIOUS = /[\p{M}\u1160-\u11ff]/u;

/** Whether the UTF-16 unit is whitespace to a regular expression's \s. */
export function isSpace(c: number): boolean {
  if (c <= 32) return c === 32 || (c >= 9 && c <= 13);
  if (c < 0xa0) return false;
  return (
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

export class TextLayer {
  /** normaliseLines(raw) */
  readonly text: string;
  private readonly sliceable: boolean;
  /**
   * Stretches of the raw text copied unchanged into \`text\` (words and the
   * single spaces between them): where each starts in the raw text and in
   * \`text\`, and its length.
   */
  private readonly rawStarts = new BlockList<number>();
  private readonly textStarts = new BlockList<number>();
  private readonly lengths = new BlockList<number>();

  constructor(readonly raw: string) {
    this.sliceable = raw.normalize('NFC') === raw;
    this.text = this.sliceable ? this.collapse() : normaliseLines(raw);
  }

  private collapse(): string {
    const raw = this.raw;
    const parts: string[] = [];
    let length = 0;
    let at = 0;
    while (at < raw.length && isSpace(raw.charCodeAt(at))) at++;
    let copied = at;
    let stop = raw.length;
    // The runs normalising changes: two or more whitespace characters, or one that is not a space. A single space
    // stays, so the search (the engine's own, not a loop over characters) passes over words and the spaces between.
    // A run's first character is where its match starts: no earlier place in the run matches.
    const runs = /\s{2,}|[^\S ]/g;
    runs.lastIndex = at;
    while (runs.test(raw)) {
      const end = runs.lastIndex;
      let run = end - 1;
      let lineBreak = raw.charCodeAt(run) === 10;
      while (run > copied && isSpace(raw.charCodeAt(run - 1))) {
        run--;
        if (raw.charCodeAt(run) === 10) lineBreak = true;
      }
      if (end === raw.length) {
        stop = run;
        break;
      }
      length = this.copy(parts, copied, run, length);
      parts.push(lineBreak ? '\n' : ' ');
      length++;
      copied = end;
    }
    // a single space ending the text is no run the search finds, and normalising drops it too
    if (stop === raw.length && stop > copied && raw.charCodeAt(stop - 1) === 32) stop--;
    this.copy(parts, copied, stop, length);
    return parts.join('');
  }

  private copy(parts: string[], start: number, end: number, length: number): number {
    this.rawStarts.push(start);
    this.textStarts.push(length);
    this.lengths.push(end - start);
    parts.push(this.raw.slice(start, end));
    return length + end - start;
  }

  /** Where raw offset `at` lands in `text`: in a copied stretch, its place; in whitespace collapsed, before the separator. */
  private toText(at: number): number {
    const low = partitionPoint(this.rawStarts.length, (i) => this.rawStarts.at(i) <= at);
    if (low === 0) return 0;
    const word = low - 1;
    return this.textStarts.at(word) + Math.min(at - this.rawStarts.at(word), this.lengths.at(word));
  }

  /** Where normaliseLines(raw.slice(start, end)) is in `text`; null when it is normalised on its own. */
  span(start: number, end: number): { from: number; to: number } | null {
    if (!this.sliceable || JOINS_PREVIOUS.test(this.raw.charAt(start)) || JOINS_PREVIOUS.test(this.raw.charAt(end))) return null;
    let from = this.toText(start);
    let to = this.toText(end);
    if (from < to && (this.text[from] === ' ' || this.text[from] === '\n')) from++;
    if (from < to && (this.text[to - 1] === ' ' || this.text[to - 1] === '\n')) to--;
    return { from, to };
  }

  /** normaliseLines(raw.slice(start, end)) */
  slice(start: number, end: number): string {
    const span = this.span(start, end);
    return span ? this.text.slice(span.from, span.to) : normaliseLines(this.raw.slice(start, end));
  }
}
