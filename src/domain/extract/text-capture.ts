import type { Element, Text } from 'domhandler';
import { BlockList } from './block-list.ts';
import { isUnreadTag, rawPiece, separatorOf, STRUCK } from './visible-text.ts';

// The page's visible text as a walk of the finished tree reads it
// (rawVisibleText of the whole document, each element's offsets reported as
// it ends), noted instead as the parser makes the nodes: the parser's events
// come in the walk's order, and a walk of its own was one more pass over
// every node of the page. Only valid for the tree as parsed: capDepth's
// lifting of deep elements reorders their text.

/**
 * The elements a view of the page's text may leave out (page-text.ts): struck-through text, table rows (shipping
 * costs), links and buttons (labels the page switches between). Where they are read is noted as they close: a view
 * then asks only them, where a pass over every element of a parsed page touched each again, long out of the cache.
 */
export const CUTTABLE: ReadonlySet<string> = new Set([...STRUCK, 'tr', 'a', 'button']);

export interface CapturedText {
  raw: string;
  /** the elements read, children before their parent, with their raw text's offsets (end exclusive) */
  elements: BlockList<Element>;
  starts: BlockList<number>;
  ends: BlockList<number>;
  /** the places in `elements` of those named in CUTTABLE, in order */
  cuttable: number[];
}

export class TextCapture {
  private readonly parts = new BlockList<string>();
  private length = 0;
  /** where each open element being read starts */
  private readonly open: number[] = [];
  /** the separator of each open element being read (a <br> has none: it is skipped once opened) */
  private readonly separators: string[] = [];
  /** whether each open element being read is named in CUTTABLE */
  private readonly cuttableOpen: boolean[] = [];
  /** the open element whose contents are not read (unread, or a <br> after its line break) */
  private skipping: Element | null = null;
  private readonly elements = new BlockList<Element>();
  private readonly starts = new BlockList<number>();
  private readonly ends = new BlockList<number>();
  private readonly cuttable: number[] = [];

  /** the text node being read: noted once the next event shows it complete (its data grows while the parser hands
   * it over in pieces, around an entity), so that rawPiece reads a node's data whole, as the walk does */
  private pending: Text | null = null;

  private notePending(): void {
    if (this.pending === null) return;
    this.push(rawPiece(this.pending.data));
    this.pending = null;
  }

  private push(piece: string): void {
    this.parts.push(piece);
    this.length += piece.length;
  }

  private read(el: Element, start: number): void {
    this.elements.push(el);
    this.starts.push(start);
    this.ends.push(this.length);
  }

  /** `hidden`: whether the element's attributes hide it (visible-text.ts, hiddenBy) */
  opened(el: Element, hidden: boolean): void {
    this.notePending();
    if (this.skipping !== null) return;
    if (isUnreadTag(el.name, hidden)) {
      this.skipping = el;
      return;
    }
    if (el.name === 'br') {
      // A void element: read at once, its close (next, with nothing between) skipped.
      const start = this.length;
      this.push('\n');
      this.read(el, start);
      this.skipping = el;
      return;
    }
    this.open.push(this.length);
    const separator = separatorOf(el.name);
    this.separators.push(separator);
    this.cuttableOpen.push(CUTTABLE.has(el.name));
    if (separator !== '') this.push(separator);
  }

  /** `node`: the text node the parser's latest data went to (a new one, or the one it read before) */
  text(node: Text): void {
    if (this.skipping !== null || node === this.pending) return;
    this.notePending();
    this.pending = node;
  }

  closed(el: Element): void {
    this.notePending();
    if (this.skipping !== null) {
      if (el === this.skipping) this.skipping = null;
      return;
    }
    const separator = this.separators.pop()!;
    if (separator !== '') this.push(separator);
    if (this.cuttableOpen.pop()) this.cuttable.push(this.elements.length);
    this.read(el, this.open.pop()!);
  }

  finish(): CapturedText {
    this.notePending();
    const { elements, starts, ends, cuttable } = this;
    return { raw: this.parts.join(), elements, starts, ends, cuttable };
  }
}
