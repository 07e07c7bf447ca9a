import type { Element } from 'domhandler';
import { isUnread, separatorOf } from './visible-text.ts';

// The page's visible text as a walk of the finished tree reads it
// (rawVisibleText of the whole document, each element's offsets reported as
// it ends), noted instead as the parser makes the nodes: the parser's events
// come in the walk's order, and a walk of its own was one more pass over
// every node of the page. Only valid for the tree as parsed: capDepth's
// lifting of deep elements reorders their text.

export interface CapturedText {
  raw: string;
  /** the elements read, children before their parent, with their raw text's offsets (end exclusive) */
  elements: Element[];
  starts: number[];
  ends: number[];
}

export class TextCapture {
  private readonly parts: string[] = [];
  private length = 0;
  /** where each open element being read starts */
  private readonly open: number[] = [];
  /** the separator of each open element being read (a <br> has none: it is skipped once opened) */
  private readonly separators: string[] = [];
  /** the open element whose contents are not read (unread, or a <br> after its line break) */
  private skipping: Element | null = null;
  private readonly elements: Element[] = [];
  private readonly starts: number[] = [];
  private readonly ends: number[] = [];

  private push(piece: string): void {
    this.parts.push(piece);
    this.length += piece.length;
  }

  private read(el: Element, start: number): void {
    this.elements.push(el);
    this.starts.push(start);
    this.ends.push(this.length);
  }

  opened(el: Element): void {
    if (this.skipping !== null) return;
    if (isUnread(el)) {
      this.skipping = el;
      return;
    }
    this.open.push(this.length);
    if (el.name === 'br') {
      this.push('\n');
      this.skipping = el;
      return;
    }
    const separator = separatorOf(el.name);
    this.separators.push(separator);
    if (separator !== '') this.push(separator);
  }

  text(data: string): void {
    if (this.skipping === null) this.push(data);
  }

  closed(el: Element): void {
    if (this.skipping !== null) {
      if (el !== this.skipping) return;
      this.skipping = null;
      if (el.name !== 'br' || isUnread(el)) return;
    } else {
      const separator = this.separators.pop()!;
      if (separator !== '') this.push(separator);
    }
    this.read(el, this.open.pop()!);
  }

  finish(): CapturedText {
    return { raw: this.parts.join(''), elements: this.elements, starts: this.starts, ends: this.ends };
  }
}
