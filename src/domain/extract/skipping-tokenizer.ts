import { Tokenizer } from 'htmlparser2';

// htmlparser2's tokenizer calls a state's method for every character of a
// page, most of which the state ignores: a text run up to its next `<` or
// `&`, a quoted attribute value up to its quote or `&`, a script up to its
// next `<` (found by a loop of its own), a tag or attribute name up to its
// end. On shop pages of hundreds of KB that stepping was a large part of the
// parse (docs/decisions/0078-parse-skips-what-the-tokenizer-ignores.md). This
// tokenizer jumps to the next character the state acts on (indexOf, each
// occurrence searched for once; through names, short, with a loop) and hands
// that character to htmlparser2's method: the same tokens in the same order,
// so the same tree (test/domain/extract/skipping-tokenizer.test.ts compares
// the parser's events on every corpus page).

/** What the overrides read and move of htmlparser2's tokenizer: private in its types, plain properties at run time. */
interface TokenizerInternals {
  /** the chunk being read: a page parsed with one end() call is one chunk */
  buffer: string;
  /** the character being read, counted from the start of the first chunk */
  index: number;
  /** where the current chunk starts, counted the same way */
  offset: number;
  stateText(c: number): void;
  stateInAttributeValueDoubleQuotes(c: number): void;
  stateInAttributeValueSingleQuotes(c: number): void;
  stateInTagName(c: number): void;
  stateInClosingTagName(c: number): void;
  stateInAttributeName(c: number): void;
  fastForwardTo(c: number): boolean;
}

const LT = 0x3c;
const AMP = 0x26;
const DOUBLE_QUOTE = 0x22;
const SINGLE_QUOTE = 0x27;
const SLASH = 0x2f;
const GT = 0x3e;
const EQ = 0x3d;

/** htmlparser2's end of a tag or attribute name: whitespace (its five), `/` or `>`. */
function endsName(c: number): boolean {
  return c === GT || c === SLASH || c === 0x20 || c === 0x0a || c === 0x09 || c === 0x0d || c === 0x0c;
}

const Base = Tokenizer as unknown as new (...args: ConstructorParameters<typeof Tokenizer>) => TokenizerInternals;

/**
 * Where a character next occurs in a chunk, from any place on: the last
 * answer stands until the place passes it, so each occurrence is searched for
 * once however often it is asked for (a text holding many `&` before its next
 * `<` does not search to the `<` again after each).
 */
class NextOccurrence {
  private buffer = '';
  /** the answer (-1: none) for a search from `from` */
  private from = 0;
  private at = -1;

  constructor(private readonly char: string) {}

  after(buffer: string, from: number): number {
    if (buffer !== this.buffer || from < this.from || (this.at !== -1 && from > this.at)) {
      this.buffer = buffer;
      this.from = from;
      this.at = buffer.indexOf(this.char, from);
    }
    return this.at;
  }
}

class SkippingTokenizerImpl extends Base {
  private readonly lt = new NextOccurrence('<');
  private readonly amp = new NextOccurrence('&');
  private readonly doubleQuote = new NextOccurrence('"');
  private readonly singleQuote = new NextOccurrence("'");

  /** Moves to just before the next `stop` or `&` after this character (the end if neither): the parse loop steps onto it. */
  private skipTo(stop: NextOccurrence): void {
    const buffer = this.buffer;
    const from = this.index - this.offset + 1;
    const at = stop.after(buffer, from);
    const amp = this.amp.after(buffer, from);
    const next = at === -1 ? (amp === -1 ? buffer.length : amp) : amp === -1 || at < amp ? at : amp;
    this.index = next + this.offset - 1;
  }

  /** Moves to just before the next character that ends a name (or is `=` when `eq`), by a loop of its own: names are short. */
  private skipName(eq: boolean): void {
    const buffer = this.buffer;
    let at = this.index - this.offset + 1;
    while (at < buffer.length) {
      const c = buffer.charCodeAt(at);
      if (endsName(c) || (eq && c === EQ)) break;
      at++;
    }
    this.index = at + this.offset - 1;
  }

  override stateInTagName(c: number): void {
    if (endsName(c)) super.stateInTagName(c);
    else this.skipName(false);
  }

  override stateInClosingTagName(c: number): void {
    if (endsName(c)) super.stateInClosingTagName(c);
    else this.skipName(false);
  }

  override stateInAttributeName(c: number): void {
    if (c === EQ || endsName(c)) super.stateInAttributeName(c);
    else this.skipName(true);
  }

  override stateText(c: number): void {
    if (c === LT || c === AMP) super.stateText(c);
    else this.skipTo(this.lt);
  }

  override stateInAttributeValueDoubleQuotes(c: number): void {
    if (c === DOUBLE_QUOTE || c === AMP) super.stateInAttributeValueDoubleQuotes(c);
    else this.skipTo(this.doubleQuote);
  }

  override stateInAttributeValueSingleQuotes(c: number): void {
    if (c === SINGLE_QUOTE || c === AMP) super.stateInAttributeValueSingleQuotes(c);
    else this.skipTo(this.singleQuote);
  }

  /** htmlparser2's own skip (scripts, comments, declarations), with indexOf instead of a loop over characters. */
  override fastForwardTo(c: number): boolean {
    const at = this.buffer.indexOf(String.fromCharCode(c), this.index - this.offset + 1);
    if (at === -1) {
      // as htmlparser2's: the loop's own step then ends the chunk
      this.index = this.buffer.length + this.offset - 1;
      return false;
    }
    this.index = at + this.offset;
    return true;
  }
}

/** htmlparser2's tokenizer, for its Parser's `Tokenizer` option. */
export const SkippingTokenizer = SkippingTokenizerImpl as unknown as typeof Tokenizer;
