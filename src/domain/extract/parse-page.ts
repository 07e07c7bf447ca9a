import { Parser } from 'htmlparser2';
import { findOne, textContent } from 'domutils';
import { DomHandler, type Document, type Element, type Text } from 'domhandler';
import { normaliseText } from '../observed-value.ts';
import { capDepth, MAX_ELEMENT_DEPTH } from './cap-depth.ts';
import { PageElements } from './page-elements.ts';
import { SkippingTokenizer } from './skipping-tokenizer.ts';
import { TextCapture, type CapturedText } from './text-capture.ts';
import { hiddenBy } from './visible-text.ts';

// A loaded page, parsed once and shared by every target and the preview.
// What whole-page lookups need of every element (how deep elements nest, the
// first <base href>, the elements looked up by name, the visible text) is
// noted as the parser makes the elements: on pages of 400 KB each of those was
// a walk of its own. The visible text is noted only when asked for: targets
// that read selected elements alone never read the whole page's text, and
// noting it made their parse dearer (decision record 0061, "Found after").

export interface ParsedPage {
  readonly document: Document;
  /** the URL the page was finally served from, after redirects */
  readonly finalUrl: string;
  /** what relative links resolve against: <base href> if valid, else finalUrl */
  readonly baseUrl: string;
  /** the elements whole-page targets look up (page-elements.ts) */
  readonly elements: PageElements;
  /** the facts found once per page (per-page.ts) */
  readonly found: Map<string, unknown>;
  /**
   * the whole page's visible text noted while parsing (text-capture.ts); null when it was not asked for
   * (ParseOptions.captureText) or capDepth has reordered the tree since: page-text.ts then walks the tree
   */
  readonly parsedText: CapturedText | null;
}

export interface ParseOptions {
  /** note the whole page's visible text while parsing (default true): false only when nothing will read it */
  readonly captureText?: boolean;
}

/** htmlparser2's DOM handler (what parseDocument uses), noting each element as it opens. */
class PageHandler extends DomHandler {
  /** the most elements open at once: how deep the deepest element nests */
  deepest = 0;
  /** the first <base> with an href, as domutils' findOne finds it */
  baseHref: string | undefined;
  readonly elements = new PageElements();
  // What the tag being opened says of itself, noted as the parser reads its
  // attributes (the first `style` counts, as in attribs): looked up in
  // `attribs` instead, each was a lookup in an object whose shape varies from
  // element to element (decision record 0082).
  #hidden = false;
  #style: string | undefined = undefined;
  #itemprop = false;

  constructor(private readonly text: TextCapture | null) {
    super();
  }

  /** Every tag opened, implied ones too, is named first: what its attributes say starts afresh. */
  onopentagname(): void {
    this.#hidden = false;
    this.#style = undefined;
    this.#itemprop = false;
  }

  onattribute(name: string, value: string): void {
    if (name === 'style') this.#style ??= value;
    else if (name === 'hidden') this.#hidden = true;
    else if (name === 'itemprop') this.#itemprop = true;
  }

  override onopentag(name: string, attribs: Record<string, string>): void {
    super.onopentag(name, attribs);
    // the open elements, below the document itself
    const open = this.tagStack.length - 1;
    if (open > this.deepest) this.deepest = open;
    if (this.baseHref === undefined && name === 'base') this.baseHref = attribs.href;
    const el = this.tagStack[open] as Element;
    this.elements.note(el, this.#itemprop);
    this.text?.opened(el, hiddenBy(this.#hidden, this.#style));
  }

  override ontext(data: string): void {
    super.ontext(data);
    this.text?.text(this.lastNode as Text);
  }

  override onclosetag(): void {
    const el = this.tagStack[this.tagStack.length - 1] as Element;
    super.onclosetag();
    this.text?.closed(el);
  }
}

function resolveBase(href: string | undefined, finalUrl: string): string {
  if (href === undefined) return finalUrl;
  try {
    return new URL(href.trim(), finalUrl).href;
  } catch {
    return finalUrl;
  }
}

export function parsePage(html: string, finalUrl: string, options: ParseOptions = {}): ParsedPage {
  const text = options.captureText === false ? null : new TextCapture();
  const handler = new PageHandler(text);
  new Parser(handler, { Tokenizer: SkippingTokenizer }).end(html);
  const document = handler.root;
  // capDepth lifts only elements nested deeper than its limit
  const capped = handler.deepest > MAX_ELEMENT_DEPTH;
  if (capped) capDepth(document);
  return {
    document,
    finalUrl,
    baseUrl: resolveBase(handler.baseHref, finalUrl),
    elements: handler.elements,
    found: new Map(),
    parsedText: capped || text === null ? null : text.finish(),
  };
}

function insideSvg(el: Element): boolean {
  for (let parent = el.parent; parent; parent = parent.parent) {
    if (parent.type === 'tag' && parent.name === 'svg') return true;
  }
  return false;
}

/** The document's <title>, whitespace collapsed; null when absent or empty. */
export function pageTitle(page: ParsedPage): string | null {
  const title = findOne((el) => el.name === 'title' && !insideSvg(el), page.document.children);
  const text = title ? normaliseText(textContent(title)) : '';
  return text === '' ? null : text;
}
