import type { Element } from 'domhandler';

// The elements whole-page targets look up by name (JSON-LD scripts, meta
// tags, the title's <h1>) or by microdata property, noted as the parser makes
// them (parse-page.ts) instead of found by walking the page again. In
// document order, as domutils' findAll lists them.

const NAMED = new Set(['script', 'meta', 'h1']);

export class PageElements {
  private readonly named = new Map<string, Element[]>();
  readonly itemprops: Element[] = [];

  /** Notes an element of the page, `itemprop`: whether it has that attribute; elements come in document order. */
  note(el: Element, itemprop: boolean): void {
    if (NAMED.has(el.name)) {
      const list = this.named.get(el.name);
      if (list) list.push(el);
      else this.named.set(el.name, [el]);
    }
    if (itemprop) this.itemprops.push(el);
  }

  of(name: string): readonly Element[] {
    return this.named.get(name) ?? [];
  }
}

/** A parsed page (parse-page.ts, which makes these as it parses: named here by shape, not imported back). */
interface NotedPage {
  readonly elements: PageElements;
}

/** The page's elements of one name: script, meta or h1. */
export function elementsNamed(page: NotedPage, name: 'script' | 'meta' | 'h1'): readonly Element[] {
  return page.elements.of(name);
}

/** The page's elements with an itemprop attribute. */
export function itempropElements(page: NotedPage): readonly Element[] {
  return page.elements.itemprops;
}
