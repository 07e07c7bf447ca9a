import { hasChildren, type AnyNode, type Element } from 'domhandler';
import { isElement } from './dom.ts';
import type { ParsedPage } from './parse-page.ts';
import { perPage } from './per-page.ts';

// The elements whole-page targets look up by name (JSON-LD scripts, meta
// tags, the title's <h1>) or by microdata property, found in one walk of the
// page instead of one per lookup. In document order, as domutils' findAll
// lists them.

const NAMED = new Set(['script', 'meta', 'h1']);

interface PageElements {
  named: Map<string, Element[]>;
  itemprops: Element[];
}

function findElements(nodes: readonly AnyNode[]): PageElements {
  const found: PageElements = { named: new Map(), itemprops: [] };
  const stack: AnyNode[] = [...nodes].reverse();
  for (let node = stack.pop(); node; node = stack.pop()) {
    if (isElement(node)) {
      if (NAMED.has(node.name)) {
        const list = found.named.get(node.name);
        if (list) list.push(node);
        else found.named.set(node.name, [node]);
      }
      if (node.attribs.itemprop !== undefined) found.itemprops.push(node);
    }
    if (hasChildren(node)) for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!);
  }
  return found;
}

function pageElements(page: ParsedPage): PageElements {
  return perPage(page, 'page elements', () => findElements(page.document.children));
}

/** The page's elements of one name: script, meta or h1. */
export function elementsNamed(page: ParsedPage, name: 'script' | 'meta' | 'h1'): readonly Element[] {
  return pageElements(page).named.get(name) ?? [];
}

/** The page's elements with an itemprop attribute. */
export function itempropElements(page: ParsedPage): readonly Element[] {
  return pageElements(page).itemprops;
}
