import { selectAll } from 'css-select';
import type { AnyNode, Element } from 'domhandler';
import type { ParsedPage } from './parse-page.ts';

// Runs a caller's CSS selector. A selector css-select cannot compile (bad
// syntax, an unsupported pseudo-class) is reported, never thrown.

export type SelectResult = { ok: true; elements: Element[] } | { ok: false; error: string };

export function selectElements(page: ParsedPage, selector: string): SelectResult {
  try {
    return { ok: true, elements: selectAll<AnyNode, Element>(selector, page.document) };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}
