import { parseDocument } from 'htmlparser2';
import { findOne, textContent } from 'domutils';
import type { Document, Element } from 'domhandler';
import { normaliseText } from '../observed-value.ts';
import { capDepth } from './cap-depth.ts';

// A loaded page, parsed once and shared by every target and the preview.

export interface ParsedPage {
  readonly document: Document;
  /** the URL the page was finally served from, after redirects */
  readonly finalUrl: string;
  /** what relative links resolve against: <base href> if valid, else finalUrl */
  readonly baseUrl: string;
}

function resolveBase(document: Document, finalUrl: string): string {
  const href = findOne((el) => el.name === 'base' && el.attribs.href !== undefined, document.children)?.attribs.href;
  if (href === undefined) return finalUrl;
  try {
    return new URL(href.trim(), finalUrl).href;
  } catch {
    return finalUrl;
  }
}

export function parsePage(html: string, finalUrl: string): ParsedPage {
  const document = parseDocument(html);
  capDepth(document);
  return { document, finalUrl, baseUrl: resolveBase(document, finalUrl) };
}

function insideSvg(el: Element): boolean {
  for (let parent = el.parent; parent; parent = parent.parent) {
    if (parent.type === 'tag' && parent.name === 'svg') return true;
  }
  return false;
}

/** The document's <title>, whitespace collapsed; null when absent or empty. */
export function pageTitle(page: ParsedPage): string | null {
  const title = findOne((el) => el.name === 'title' && !insideSvg(el), page.document.children);
  const text = title ? normaliseText(textContent(title)) : '';
  return text === '' ? null : text;
}
