import { canonicalJsonText, type JsonValue } from './json-document.ts';
import { availabilityFromSchema } from './schema-availability.ts';
import { parsePriceText } from './price-text.ts';
import { MAX_PREVIEW_ELEMENTS, type ElementHint, type PreviewElement } from './preview-elements.ts';
import { capString } from './target-extraction.ts';

// The preview's element list of a JSON document: its values in document
// order, each with the JSONPath that names it alone, so a user picks a path as
// they pick a selector on a page. Arrays are summarised: an entry for the
// array itself (how many items) and the values of its first few items only,
// so a list of a thousand offers does not fill the list with its first.

const SAMPLED_ITEMS = 3;
const MAX_ELEMENT_TEXT = 200;
const PLAIN_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/u;
const PRICE_NAME = /price|amount|cost|total/iu;
const STOCK_NAME = /stock|availab|sold.?out/iu;

function memberPath(parent: string, name: string): string {
  if (PLAIN_NAME.test(name)) return `${parent}.${name}`;
  return `${parent}['${name.replace(/\\/gu, '\\\\').replace(/'/gu, "\\'")}']`;
}

function isUrl(text: string): boolean {
  return /^https?:\/\//iu.test(text) && URL.canParse(text);
}

function hintsOf(name: string, value: JsonValue): ElementHint[] {
  const hints: ElementHint[] = [];
  if (typeof value === 'number' && PRICE_NAME.test(name)) hints.push('price');
  if (typeof value === 'string') {
    const price = parsePriceText(value);
    if (price.amount !== null && price.currency !== null) hints.push('price');
    if (isUrl(value)) hints.push('links');
    if (availabilityFromSchema(value) !== null && STOCK_NAME.test(name)) hints.push('availability');
  }
  if (typeof value === 'boolean' && STOCK_NAME.test(name)) hints.push('availability');
  return hints;
}

function leafTag(value: JsonValue): string {
  return value === null ? 'null' : typeof value;
}

export function listJsonElements(document: JsonValue): PreviewElement[] {
  const listed: PreviewElement[] = [];
  const pending: { path: string; name: string; value: JsonValue }[] = [{ path: '$', name: '', value: document }];
  for (let item = pending.pop(); item && listed.length < MAX_PREVIEW_ELEMENTS; item = pending.pop()) {
    const { path, name, value } = item;
    if (Array.isArray(value)) {
      listed.push({ selector: path, tag: 'array', text: `${value.length} item${value.length === 1 ? '' : 's'}`, hints: [] });
      const sampled = value.slice(0, SAMPLED_ITEMS).map((v, i) => ({ path: `${path}[${i}]`, name, value: v }));
      pending.push(...sampled.reverse());
    } else if (value !== null && typeof value === 'object') {
      const members = Object.entries(value).map(([key, v]) => ({ path: memberPath(path, key), name: key, value: v }));
      pending.push(...members.reverse());
    } else {
      const text = capString(typeof value === 'string' ? value : canonicalJsonText(value), MAX_ELEMENT_TEXT);
      listed.push({ selector: path, tag: leafTag(value), text, hints: hintsOf(name, value) });
    }
  }
  return listed;
}
