import type { AnyNode } from 'domhandler';
import type { ParsedPage } from './parse-page.ts';
import type { Availability } from '../observed-value.ts';
import { combineAvailability } from './schema-availability.ts';
import { stockFromText } from './stock-text.ts';
import { jsonLdFacts, metaFacts, microdataFacts } from './structured-data.ts';
import { visibleText } from './visible-text.ts';

// An availability target's value: structured data first (page scope: JSON-LD,
// microdata, product meta tags; selector scope: microdata inside the element),
// then the wording of the visible text. Null when nothing states the stock.

export function extractAvailability(page: ParsedPage, roots: readonly AnyNode[] | null): Availability | null {
  const structured: (() => Availability[])[] = roots
    ? [() => microdataFacts(roots, '.').availability]
    : [
        () => jsonLdFacts(page).availability,
        () => microdataFacts(page.document.children, '.').availability,
        () => metaFacts(page).availability,
      ];
  for (const source of structured) {
    const value = combineAvailability(source());
    if (value) return value;
  }
  return stockFromText(visibleText(roots ?? page.document.children));
}
