import type { AnyNode } from 'domhandler';
import { descendants } from './dom.ts';
import type { ParsedPage } from './parse-page.ts';

// The links below the nodes as absolute http(s) URLs, resolved against the
// page's base (its <base href>, else its final URL), without fragments (a
// fragment names a place in the same document, not a new link), optionally
// only those containing `match`, distinct and sorted.

export function collectLinks(page: ParsedPage, roots: readonly AnyNode[], match?: string): string[] {
  const urls = new Set<string>();
  for (const el of descendants(roots)) {
    const href = el.attribs.href;
    if ((el.name !== 'a' && el.name !== 'area') || href === undefined) continue;
    let url: URL;
    try {
      url = new URL(href.trim(), page.baseUrl);
    } catch {
      continue;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') continue;
    url.hash = '';
    if (match === undefined || url.href.includes(match)) urls.add(url.href);
  }
  return [...urls].sort();
}
