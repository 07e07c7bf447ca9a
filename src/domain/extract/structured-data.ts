import { textContent } from 'domutils';
import type { AnyNode, Element } from 'domhandler';
import { descendants } from './dom.ts';
import { parseDotDecimal, type DecimalAmount } from './money.ts';
import type { DecimalHint } from './number-text.ts';
import type { ParsedPage } from './parse-page.ts';
import { elementsNamed, itempropElements } from './page-elements.ts';
import { perPage } from './per-page.ts';
import { parsePriceText } from './price-text.ts';
import { normaliseText, type Availability } from '../observed-value.ts';
import { availabilityFromSchema } from './schema-availability.ts';

// What a page states about its product in machine-readable form: JSON-LD,
// schema.org microdata and Open Graph product meta tags. Each source gives
// prices (with the currency it names, if any) and availability values.

export interface StatedPrice {
  amount: DecimalAmount;
  /** ISO codes the stated currency may be; null when the source names none */
  codes: readonly string[] | null;
  /** visible text only: how the automatic reading settled a lone separator before three digits ("31.500") */
  reading?: string | null;
}

export interface StructuredFacts {
  prices: StatedPrice[];
  availability: Availability[];
}

/** A price value as structured data writes it: a JSON number, "1299.00", or "$1,299.00" at worst. */
function readStatedAmount(value: unknown, decimal: DecimalHint | undefined): DecimalAmount | null {
  if (typeof value === 'number') {
    // A JSON number's shortest decimal form reproduces the digits the page
    // wrote for any price of up to 15 significant digits.
    return Number.isFinite(value) && value >= 0 ? parseDotDecimal(String(value)) : null;
  }
  if (typeof value === 'string') return parsePriceText(value, { decimal }).amount;
  return null;
}

function readCurrency(value: unknown): readonly string[] | null {
  return typeof value === 'string' && /^[A-Za-z]{3}$/u.test(value.trim()) ? [value.trim().toUpperCase()] : null;
}

// ---- JSON-LD ---------------------------------------------------------------

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

// a comma's following whitespace and the bracket it closes
const CLOSES_AFTER = /\s*[}\]]/uy;

/**
 * Drops commas before a closing bracket (outside strings): the commonest
 * hand-written JSON-LD mistake. The kept stretches are joined once, not the
 * text grown a character at a time: some shop pages' blocks are large.
 */
export function withoutTrailingCommas(text: string): string {
  const kept: string[] = [];
  let from = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 0x5c) i++;
      else if (ch === 0x22) inString = false;
    } else if (ch === 0x22) {
      inString = true;
    } else if (ch === 0x2c) {
      CLOSES_AFTER.lastIndex = i + 1;
      if (CLOSES_AFTER.test(text)) {
        kept.push(text.slice(from, i));
        from = i + 1;
      }
    }
  }
  kept.push(text.slice(from));
  return kept.join('');
}

function parsedJson(text: string): Json | undefined {
  try {
    return JSON.parse(text) as Json;
  } catch {
    return undefined;
  }
}

/**
 * The block's JSON, mended of trailing commas only when it does not parse as
 * it is; a broken block is skipped, never half-read.
 */
function parseJsonLd(text: string): Json | undefined {
  const body = text
    .trim()
    .replace(/^(?:\/\/)?\s*<!\[CDATA\[|(?:\/\/)?\s*\]\]>$/gu, '')
    .trim();
  return parsedJson(body) ?? parsedJson(withoutTrailingCommas(body));
}

function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Property lookup ignoring case: pages write "Offers" and "offers" alike. */
function prop(object: JsonObject, name: string): Json | undefined {
  const key = Object.keys(object).find((k) => k.toLowerCase() === name.toLowerCase());
  return key === undefined ? undefined : object[key];
}

function types(object: JsonObject): string[] {
  const type = prop(object, '@type');
  return (Array.isArray(type) ? type : [type]).filter((t): t is string => typeof t === 'string').map((t) => t.toLowerCase());
}

function asList(value: Json | undefined): Json[] {
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}

// Relations to other products and parties: their offers are not this page's.
const FOREIGN_KEYS = new Set([
  'isrelatedto',
  'issimilarto',
  'isaccessoryorsparepartfor',
  'isconsumablefor',
  'seller',
  'offeredby',
  'brand',
  'review',
  'aggregaterating',
  'potentialaction',
  'manufacturer',
]);

// Specification kinds that are not what the buyer pays now.
const NOT_THE_PRICE = /listprice|strikethroughprice|msrp|srp|invoiceprice|minimumadvertisedprice/u;

function offerPrice(offer: JsonObject, aggregate: boolean): StatedPrice | null {
  const direct = prop(offer, 'price') ?? (aggregate ? prop(offer, 'lowPrice') : undefined);
  const currency = readCurrency(prop(offer, 'priceCurrency'));
  const amount = readStatedAmount(direct, '.');
  if (amount) return { amount, codes: currency };
  const specs = asList(prop(offer, 'priceSpecification')).filter(isObject);
  const current = specs.filter((spec) => {
    const priceType = prop(spec, 'priceType');
    return typeof priceType !== 'string' || !NOT_THE_PRICE.test(priceType.toLowerCase());
  });
  for (const spec of current) {
    const specAmount = readStatedAmount(prop(spec, 'price'), '.');
    if (specAmount) return { amount: specAmount, codes: readCurrency(prop(spec, 'priceCurrency')) ?? currency };
  }
  return null;
}

const isZero = (amount: DecimalAmount): boolean => !/[1-9]/u.test(amount.whole + amount.fraction);

function walkJsonLd(node: Json | undefined, asOffer: boolean, pricesCount: boolean, facts: StructuredFacts): void {
  if (Array.isArray(node)) {
    for (const item of node) walkJsonLd(item, asOffer, pricesCount, facts);
    return;
  }
  if (!isObject(node)) return;
  const kinds = types(node);
  const aggregate = kinds.includes('aggregateoffer');
  const isOffer = asOffer || aggregate || kinds.includes('offer');
  // An AggregateOffer's lowPrice stands for its nested offers: their prices
  // are variants of it, not rival prices; their availability still counts.
  let nestedPricesCount = pricesCount;
  const stated = isOffer ? offerPrice(node, aggregate) : null;
  // An offer priced at zero is a placeholder (a template, an item not on
  // sale): neither its price nor its availability states this page's offer.
  const placeholder = stated !== null && isZero(stated.amount);
  if (isOffer && !placeholder) {
    const price = pricesCount ? stated : null;
    if (price) facts.prices.push(price);
    const availability = prop(node, 'availability');
    if (typeof availability === 'string') {
      const value = availabilityFromSchema(availability);
      if (value) facts.availability.push(value);
    }
    if (aggregate && price) nestedPricesCount = false;
  }
  for (const [key, value] of Object.entries(node)) {
    const lower = key.toLowerCase();
    if (FOREIGN_KEYS.has(lower) || lower === 'pricespecification') continue;
    walkJsonLd(value, lower === 'offers', lower === 'offers' ? nestedPricesCount : pricesCount, facts);
  }
}

export function jsonLdFacts(page: ParsedPage): StructuredFacts {
  return perPage(page, 'json-ld', () => findJsonLdFacts(page));
}

function findJsonLdFacts(page: ParsedPage): StructuredFacts {
  const facts: StructuredFacts = { prices: [], availability: [] };
  const scripts = elementsNamed(page, 'script').filter(
    (el) => (el.attribs.type ?? '').split(';')[0]!.trim().toLowerCase() === 'application/ld+json',
  );
  for (const script of scripts) walkJsonLd(parseJsonLd(textContent(script)), false, true, facts);
  return facts;
}

// ---- microdata -------------------------------------------------------------

function hasItemprop(el: Element, name: string): boolean {
  return (el.attribs.itemprop ?? '').toLowerCase().split(/\s+/u).includes(name.toLowerCase());
}

/** The value microdata gives a property: content, href (link), value, else the element's text. */
function itemValue(el: Element): { value: string; fromAttribute: boolean } {
  for (const name of ['content', 'href', 'value']) {
    const value = el.attribs[name];
    if (value !== undefined) return { value, fromAttribute: true };
  }
  return { value: normaliseText(textContent(el)), fromAttribute: false };
}

function itemScope(el: Element): Element | null {
  for (let parent = el.parent; parent; parent = parent.parent) {
    if (parent.type === 'tag' && parent.attribs.itemscope !== undefined) return parent;
  }
  return null;
}

function scopeCurrency(el: Element): readonly string[] | null {
  const scope = itemScope(el);
  const currencyEl = scope ? descendants([scope]).find((d) => hasItemprop(d, 'priceCurrency')) : undefined;
  return currencyEl ? readCurrency(itemValue(currencyEl).value) : null;
}

/** Microdata of the whole page. */
export function pageMicrodataFacts(page: ParsedPage, decimal: DecimalHint | undefined): StructuredFacts {
  return perPage(page, `microdata ${decimal ?? 'auto'}`, () => statedBy(itempropElements(page), decimal));
}

/** Microdata of the element and what is inside it, on a whole page. */
export function areaMicrodataFacts(page: ParsedPage, area: Element, decimal: DecimalHint | undefined): StructuredFacts {
  const inside = (el: Element) => {
    for (let node: Element | null = el; node; node = node.parent?.type === 'tag' ? node.parent : null) if (node === area) return true;
    return false;
  };
  return statedBy(itempropElements(page).filter(inside), decimal);
}

/** Microdata prices and availability on or below the nodes. */
export function microdataFacts(nodes: readonly AnyNode[], decimal: DecimalHint | undefined): StructuredFacts {
  return statedBy(
    descendants(nodes).filter((el) => el.attribs.itemprop !== undefined),
    decimal,
  );
}

/** The microdata the elements (each with an itemprop attribute, in document order) state. */
function statedBy(elements: readonly Element[], decimal: DecimalHint | undefined): StructuredFacts {
  const facts: StructuredFacts = { prices: [], availability: [] };
  for (const el of elements) {
    if (hasItemprop(el, 'price') || hasItemprop(el, 'lowPrice')) {
      const { value, fromAttribute } = itemValue(el);
      // schema.org asks for a dot in attribute values; visible text follows the page
      const parsed = parsePriceText(value, { decimal: fromAttribute ? '.' : decimal });
      if (parsed.amount) facts.prices.push({ amount: parsed.amount, codes: scopeCurrency(el) ?? parsed.currency?.codes ?? null });
    }
    if (hasItemprop(el, 'availability')) {
      const value = availabilityFromSchema(itemValue(el).value);
      if (value) facts.availability.push(value);
    }
  }
  return facts;
}

// ---- Open Graph / product meta tags ------------------------------------------

function metaContent(page: ParsedPage, names: readonly string[]): string[] {
  return elementsNamed(page, 'meta')
    .filter((el) => names.includes((el.attribs.property ?? el.attribs.name ?? '').toLowerCase()))
    .map((el) => el.attribs.content)
    .filter((content): content is string => content !== undefined);
}

export function metaFacts(page: ParsedPage): StructuredFacts {
  return perPage(page, 'meta', () => findMetaFacts(page));
}

function findMetaFacts(page: ParsedPage): StructuredFacts {
  const codes = readCurrency(metaContent(page, ['product:price:currency', 'og:price:currency'])[0]);
  const prices = metaContent(page, ['product:price:amount', 'og:price:amount'])
    .map((content) => parsePriceText(content, { decimal: '.' }).amount)
    .filter((amount): amount is DecimalAmount => amount !== null)
    .map((amount) => ({ amount, codes }));
  const availability = metaContent(page, ['product:availability', 'og:availability'])
    .map(availabilityFromSchema)
    .filter((value): value is Availability => value !== null);
  return { prices, availability };
}
