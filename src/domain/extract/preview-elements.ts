import type { Element } from 'domhandler';
import { normaliseText } from '../observed-value.ts';
import { isElement, isTextNode } from './dom.ts';
import { capString } from './target-extraction.ts';
import { mainOfferElements } from './main-offer-elements.ts';
import type { ParsedPage } from './parse-page.ts';
import { findPriceMentions } from './price-text.ts';
import { stockFromText } from './stock-text.ts';
import { SelectorIndex, uniqueSelector } from './unique-selector.ts';
import { isHidden, visibleText } from './visible-text.ts';

// The preview's element list: the elements a user is likely to want as a
// target, each with a selector that matches it alone. Chosen, most useful
// first: schema.org price/availability properties, the smallest elements
// showing a price or stock wording, headings, link lists, then other
// itemprop elements and elements with ids or test ids. At most 200, listed in
// page order, except that the main offer's price and stock elements lead
// (main-offer-elements.ts): a user choosing a selector is offered the price a
// whole-page target reads first, not a header cart's or a recommendation's.

export type ElementHint = 'price' | 'availability' | 'links' | 'heading';

export interface PreviewElement {
  selector: string;
  tag: string;
  /** visible text, at most 200 characters */
  text: string;
  hints: ElementHint[];
}

export const MAX_PREVIEW_ELEMENTS = 200;
const MAX_ELEMENT_TEXT = 200;
// Longer texts are sections, not a price or a stock message.
const SHORT_TEXT = 160;

const NOT_CONTENT = new Set(['script', 'style', 'template', 'noscript', 'head', 'title', 'svg', 'iframe', 'object', 'embed', 'canvas']);
const HEADINGS = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6']);
const LIST_TAGS = new Set(['ul', 'ol', 'nav', 'menu', 'table']);

interface Facts {
  /** collapsed text when at most SHORT_TEXT characters, else null */
  short: string | null;
  price: boolean;
  stock: boolean;
  links: number;
}

/** Short texts, price and stock findings and link counts, bottom-up in one pass. */
function gatherFacts(elements: readonly Element[]): Map<Element, Facts> {
  const facts = new Map<Element, Facts>();
  for (let i = elements.length - 1; i >= 0; i--) {
    const el = elements[i]!;
    let raw = '';
    let tooLong = false;
    let links = el.name === 'a' && el.attribs.href !== undefined ? 1 : 0;
    for (const child of el.children) {
      if (isTextNode(child)) raw += child.data;
      else if (isElement(child)) {
        const childFacts = facts.get(child);
        links += childFacts?.links ?? 0;
        if (childFacts === undefined) continue;
        if (childFacts.short === null) tooLong = true;
        else raw += ` ${childFacts.short} `;
      }
      if (raw.length > SHORT_TEXT * 4) tooLong = true;
    }
    const text = normaliseText(raw);
    const short = tooLong || text.length > SHORT_TEXT ? null : text;
    facts.set(el, {
      short,
      price: short !== null && findPriceMentions(short).length > 0,
      stock: short !== null && stockFromText(short) !== null,
      links,
    });
  }
  return facts;
}

function contentElements(page: ParsedPage): Element[] {
  const out: Element[] = [];
  const visit = (el: Element) => {
    if (NOT_CONTENT.has(el.name) || isHidden(el)) return;
    out.push(el);
    for (const child of el.children) if (isElement(child)) visit(child);
  };
  for (const node of page.document.children) if (isElement(node)) visit(node);
  return out;
}

function hasItemprop(el: Element, name: string): boolean {
  return (el.attribs.itemprop ?? '').split(/\s+/u).includes(name);
}

interface Candidate {
  el: Element;
  order: number;
  rank: number;
  hints: Set<ElementHint>;
}

export function listElements(page: ParsedPage): PreviewElement[] {
  const elements = contentElements(page);
  const facts = gatherFacts(elements);
  const childFacts = (el: Element) =>
    el.children
      .filter(isElement)
      .map((c) => facts.get(c))
      .filter((f): f is Facts => f !== undefined);
  const candidates: Candidate[] = [];

  elements.forEach((el, order) => {
    const own = facts.get(el)!;
    const children = childFacts(el);
    const hints = new Set<ElementHint>();
    let rank = Infinity;
    const consider = (r: number, hint?: ElementHint) => {
      rank = Math.min(rank, r);
      if (hint) hints.add(hint);
    };
    if (hasItemprop(el, 'price') || hasItemprop(el, 'lowPrice')) consider(0, 'price');
    if (hasItemprop(el, 'availability')) consider(0, 'availability');
    // the smallest element showing the price: none of its children shows it alone
    if (own.price && !children.some((c) => c.price)) consider(1, 'price');
    if (own.stock && !children.some((c) => c.stock)) consider(1, 'availability');
    if (HEADINGS.has(el.name) && own.short !== '') consider(2, 'heading');
    const directLinks = el.children.filter((c) => isElement(c) && c.name === 'a').length;
    if (own.links >= 2 && (LIST_TAGS.has(el.name) || directLinks >= 3)) consider(3, 'links');
    if (el.attribs.itemprop) consider(4);
    if ((el.attribs.id || el.attribs['data-testid']) && (own.short !== '' || own.links > 0)) consider(5);
    if (own.links > 0 && rank < Infinity) hints.add('links');
    if (rank < Infinity) candidates.push({ el, order, rank, hints });
  });

  const leading = mainOfferLead(page, candidates);
  const chosen = candidates.sort((a, b) => a.rank - b.rank || a.order - b.order);
  const index = new SelectorIndex(page.document);
  const listed: { element: PreviewElement; order: number }[] = [];
  for (const candidate of chosen) {
    if (listed.length >= MAX_PREVIEW_ELEMENTS) break;
    const selector = uniqueSelector(candidate.el, index);
    if (selector === null) continue;
    const text = capString(visibleText([candidate.el]).replace(/\n/gu, ' '), MAX_ELEMENT_TEXT);
    listed.push({ element: { selector, tag: candidate.el.name, text, hints: [...candidate.hints].sort() }, order: candidate.order });
  }
  const place = (order: number) => leading.get(order) ?? LEADING_PLACES;
  return listed.sort((a, b) => place(a.order) - place(b.order) || a.order - b.order).map(({ element }) => element);
}

const LEADING_PLACES = 2;

/** The main offer's price element (place 0) and stock element (place 1) by page order. */
function mainOfferLead(page: ParsedPage, candidates: readonly Candidate[]): Map<number, number> {
  const hinted = (hint: ElementHint) => candidates.filter((c) => c.hints.has(hint));
  const prices = hinted('price');
  const stocks = hinted('availability');
  const main = mainOfferElements(
    page,
    prices.map((c) => c.el),
    stocks.map((c) => c.el),
  );
  const lead = new Map<number, number>();
  const stock = stocks.find((c) => c.el === main.stock);
  if (stock) lead.set(stock.order, 1);
  const price = prices.find((c) => c.el === main.price);
  if (price) lead.set(price.order, 0);
  return lead;
}
