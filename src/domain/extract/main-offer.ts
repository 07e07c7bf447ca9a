import type { Element } from 'domhandler';
import { isElement } from './dom.ts';
import { elementsNamed } from './page-elements.ts';
import type { ParsedPage } from './parse-page.ts';
import { perPage } from './per-page.ts';
import { pageTextView } from './page-text.ts';
import { isHidden, showsText } from './visible-text.ts';

// Where a product page shows its main offer: around the product's title, the
// page's <h1>. A person reads the price and the stock state next to the title
// before anything further away (recommendations, other sellers, the footer),
// so whole-page targets look in the title's ancestors, innermost first.
// A page whose <h1>s name different things (a list of deals, several
// products) has no single title, and nothing is read by nearness.

function shown(el: Element): boolean {
  for (let node: Element | null = el; node; node = node.parent && isElement(node.parent) ? node.parent : null) {
    if (isHidden(node)) return false;
  }
  return true;
}

/** The page's product title: its visible <h1>, or the first of several that say the same; null otherwise. */
export function productTitle(page: ParsedPage): Element | null {
  const titles = elementsNamed(page, 'h1')
    .filter(shown)
    .map((el) => ({ el, text: pageTextView(page, 'plain').of(el) }))
    .filter((t) => t.text !== '');
  const [first] = titles;
  if (!first || titles.some((t) => t.text !== first.text)) return null;
  return first.el;
}

/** Whether the element shows nothing beside its child `inner`: a wrapper, whose text is its child's. */
function wrapsOnly(el: Element, inner: Element): boolean {
  return !showsText(el.children.filter((child) => child !== inner));
}

/**
 * The ancestors of the product title, innermost first, up to the root
 * element; empty without a title. Wrappers showing nothing of their own are
 * left out: they would only be read again with the same text.
 */
export function areasAroundTitle(page: ParsedPage): readonly Element[] {
  return perPage(page, 'areas around title', () => findAreas(page));
}

/** Whether the outermost area shows the whole page: reading the page after it would read the same text again. */
export function areasCoverPage(page: ParsedPage, areas: readonly Element[]): boolean {
  const outer = areas[areas.length - 1];
  return outer !== undefined && !showsText(page.document.children.filter((child) => child !== outer));
}

function findAreas(page: ParsedPage): Element[] {
  const areas: Element[] = [];
  const title = productTitle(page);
  let inner: Element | null = null;
  for (let node = title?.parent ?? null; node && isElement(node); node = node.parent) {
    if (inner && wrapsOnly(node, inner)) areas[areas.length - 1] = node;
    else areas.push(node);
    inner = node;
  }
  return areas;
}
