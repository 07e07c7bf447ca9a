import type { AnyNode, Element } from 'domhandler';
import type { ParsedPage } from './parse-page.ts';
import type { Availability } from '../observed-value.ts';
import { combineAvailability } from './schema-availability.ts';
import { stockFromWording, stockWording } from './stock-text.ts';
import { areasAroundTitle, areasCoverPage } from './main-offer.ts';
import { jsonLdFacts, metaFacts, microdataFacts, pageMicrodataFacts } from './structured-data.ts';
import { visibleText } from './visible-text.ts';

// An availability target's value: structured data first (page scope: JSON-LD,
// microdata, product meta tags; selector scope: microdata inside the element),
// then the wording of the visible text. On a whole page the wording nearest
// the product title decides (main-offer.ts): the innermost of its ancestors
// whose text says anything about stock, so a phrase of another product or of
// the footer never outweighs the main product's. A link or button worded both
// ways ("Add to cart" and "Unavailable" in one control) holds labels that the
// page's style switches between: it says nothing. Null when nothing states
// the stock.

const CONTROLS = new Set(['a', 'button']);

// Each control is judged once, however many areas around the title hold it.
const switched = new WeakMap<Element, boolean>();

function switchedLabels(el: Element): boolean {
  if (!CONTROLS.has(el.name)) return false;
  let judged = switched.get(el);
  if (judged === undefined) {
    const wording = stockWording(visibleText([el]));
    switched.set(el, (judged = wording.out > 0 && wording.in > 0));
  }
  return judged;
}

function wordingOf(nodes: readonly AnyNode[]) {
  return stockWording(visibleText(nodes, { skip: switchedLabels }));
}

export function extractAvailability(page: ParsedPage, roots: readonly AnyNode[] | null): Availability | null {
  const structured: (() => Availability[])[] = roots
    ? [() => microdataFacts(roots, '.').availability]
    : [() => jsonLdFacts(page).availability, () => pageMicrodataFacts(page, '.').availability, () => metaFacts(page).availability];
  for (const source of structured) {
    const value = combineAvailability(source());
    if (value) return value;
  }
  if (roots) return stockFromWording(wordingOf(roots));
  const areas = areasAroundTitle(page);
  for (const area of areas) {
    const wording = wordingOf([area]);
    if (wording.out > 0 || wording.in > 0) return stockFromWording(wording);
  }
  return areasCoverPage(page, areas) ? null : stockFromWording(wordingOf(page.document.children));
}
