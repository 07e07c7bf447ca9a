import type { AnyNode, Element } from 'domhandler';
import type { ParsedPage } from './parse-page.ts';
import type { Availability } from '../observed-value.ts';
import { combineAvailability } from './schema-availability.ts';
import { StockText, stockFromWording, stockWording, type StockWording } from './stock-text.ts';
import { perPage } from './per-page.ts';
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

/**
 * Whether a control holds labels worded both ways, its wording read by `wordingOf`. `placesIn`, where given, counts
 * the places where phrases start in the control's text (null: not known): each place holds one phrase at most, so a
 * control with fewer than two is not read at all (most of a page's links and buttons).
 */
function switchedLabels(
  wordingOf: (el: Element) => StockWording,
  placesIn: ((el: Element) => number | null) | null = null,
): (el: Element) => boolean {
  return (el) => {
    if (!CONTROLS.has(el.name)) return false;
    if (placesIn !== null && (placesIn(el) ?? 2) < 2) return false;
    const wording = wordingOf(el);
    return wording.out > 0 && wording.in > 0;
  };
}

function wordingOf(nodes: readonly AnyNode[]) {
  // a page repeats its controls' words ("Add to cart" on every product tile): each text is judged once
  const judged = new Map<string, StockWording>();
  const controlWording = (el: Element) => {
    const text = visibleText([el]);
    let wording = judged.get(text);
    if (wording === undefined) {
      wording = stockWording(text);
      judged.set(text, wording);
    }
    return wording;
  };
  return stockWording(visibleText(nodes, { skip: switchedLabels(controlWording) }));
}

/** The wording of an element's text in a view of the page, its text normalised once for the view (stock-text.ts). */
function wordingIn(view: PageTextView, words: StockText): (el: Element) => StockWording {
  return (el) => {
    const span = view.span(el);
    return span ? words.of(span.from, span.to) : stockWording(view.of(el));
  };
}

/** The page's text and its elements' without the controls worded both ways, with their wording. */
function stockText(page: ParsedPage): { view: PageTextView; words: StockText } {
  return perPage(page, 'stock text', () => {
    const plain = pageTextView(page, 'plain');
    const plainWords = new StockText(plain.text);
    const places = plainWords.places();
    const skip = switchedLabels(wordingIn(plain, plainWords), places && plain.placesIn(places));
    const view = pageTextView(page, 'without switched labels', { skip });
    return { view, words: view.text === plain.text ? plainWords : new StockText(view.text) };
  });
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
  const { view, words } = stockText(page);
  const areaWording = wordingIn(view, words);
  for (const area of areas) {
    const wording = areaWording(area);
    if (wording.out > 0 || wording.in > 0) return stockFromWording(wording);
  }
  return areasCoverPage(page, areas) ? null : stockFromWording(words.whole());
}
