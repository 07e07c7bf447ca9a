import type { AnyNode, Element } from 'domhandler';
import type { ParsedPage } from './parse-page.ts';
import type { Availability } from '../observed-value.ts';
import { combineAvailability } from './schema-availability.ts';
import { stockFromWording, stockWording } from './stock-text.ts';
import { areasAroundTitle, areasCoverPage } from './main-offer.ts';
import { jsonLdFacts, metaFacts, microdataFacts, pageMicrodataFacts } from './structured-data.ts';
import { pageTextView, type PageTextView } from './page-text.ts';
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

/** Whether a control holds labels worded both ways, its text read by `textOf`. */
function switchedLabels(textOf: (el: Element) => string): (el: Element) => boolean {
  // a page repeats its controls' words ("Add to cart" on every product tile): each text is judged once
  const judged = new Map<string, boolean>();
  return (el) => {
    if (!CONTROLS.has(el.name)) return false;
    const text = textOf(el);
    let switched = judged.get(text);
    if (switched === undefined) {
      const wording = stockWording(text);
      switched = wording.out > 0 && wording.in > 0;
      judged.set(text, switched);
    }
    return switched;
  };
}

function wordingOf(nodes: readonly AnyNode[]) {
  return stockWording(visibleText(nodes, { skip: switchedLabels((el) => visibleText([el])) }));
}

/** The page's text and its elements' without the controls worded both ways. */
function stockText(page: ParsedPage): PageTextView {
  const plain = pageTextView(page, 'plain');
  return pageTextView(page, 'without switched labels', { skip: switchedLabels((el) => plain.of(el)) });
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
  const text = stockText(page);
  for (const area of areas) {
    const wording = stockWording(text.of(area));
    if (wording.out > 0 || wording.in > 0) return stockFromWording(wording);
  }
  return areasCoverPage(page, areas) ? null : stockFromWording(stockWording(text.text));
}
