import { normaliseLines, runSeparator } from './visible-text.ts';
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
    // The runs normalising changes, kept by the split: two or more whitespace characters, or one that is not a space.
    // A single space stays, so the split (the engine's own search, not a loop over characters) passes over words and
    // the spaces between: pieces alternate, stretches copied unchanged at even places, runs at odd ones.
    const pieces = raw.split(/(\s{2,}|[^\S ])/);
    const last = pieces.length - 1;
    // a single space either end is no run the split finds, and normalising drops it too
    let rawAt = 0;
    if (pieces[0]!.charCodeAt(0) === 32) {
      pieces[0] = pieces[0]!.slice(1);
      rawAt = 1;
    }
    if (pieces[last]!.charCodeAt(pieces[last]!.length - 1) === 32) pieces[last] = pieces[last]!.slice(0, -1);
    let textAt = 0;
    for (let k = 0; ; k += 2) {
      const stretch = pieces[k]!.length;
      if (stretch > 0) {
        this.rawStarts.push(rawAt);
        this.textStarts.push(textAt);
        this.lengths.push(stretch);
      }
      rawAt += stretch;
      textAt += stretch;
      if (k === last) break;
      const run = pieces[k + 1]!;
      // a run either end of the text goes; any other becomes one separator, a line break if the run holds one
      const edge = textAt === 0 || (k + 2 === last && pieces[last] === '');
      const separator = edge ? '' : runSeparator(run);
      pieces[k + 1] = separator;
      rawAt += run.length;
      textAt += separator.length;
    }
    return pieces.join('');
  }

  /** Where raw offset `at` lands in `text`: in a copied stretch, its place; in whitespace collapsed, before the separator. */
  private toText(at: number): number {
    const low = partitionPoint(this.rawStarts.length, (i) => this.rawStarts.at(i) <= at);
    if (low === 0) return 0;
    const word = low - 1;
    return this.textStarts.at(word) + Math.min(at - this.rawStarts.at(word), this.lengths.at(word));
  }

  /** Whether the raw character at `at` composes with the one before it; none below U+0300 does, no expression needed. */
  private joinsPrevious(at: number): boolean {
    return this.raw.charCodeAt(at) >= 0x300 && JOINS_PREVIOUS.test(this.raw.charAt(at));
  }

  /** Whether normaliseLines(raw.slice(start, end)) is a slice of `text` (span), not normalised on its own. */
  slices(start: number, end: number): boolean {
    return this.sliceable && !this.joinsPrevious(start) && !this.joinsPrevious(end);
  }

  /**
   * Where in the raw text the character at `at` in `text` was copied from; null for a separator (a run of whitespace
   * collapsed), or when the raw text is normalised whole. A copied character lies in a span of the layer exactly when
   * its raw place is inside the span's raw stretch: toText only grows, and steps past that place by one.
   */
  toRaw(at: number): number | null {
    if (!this.sliceable) return null;
    const word = partitionPoint(this.textStarts.length, (i) => this.textStarts.at(i) <= at) - 1;
    if (word < 0 || at - this.textStarts.at(word) >= this.lengths.at(word)) return null;
    return this.rawStarts.at(word) + at - this.textStarts.at(word);
  }

  /** Where normaliseLines(raw.slice(start, end)) is in `text`; null when it is normalised on its own. */
  span(start: number, end: number): { from: number; to: number } | null {
    if (!this.slices(start, end)) return null;
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
