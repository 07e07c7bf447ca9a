import type { Element } from 'domhandler';
import { isElement } from './dom.ts';

// Several amounts in one text, where the words around them say which one is
// the price asked now. Each rule sets amounts aside only when at least one
// other amount remains; what remains still has to agree on one value, so a
// text whose amounts no rule tells apart stays ambiguous:
// * an amount in parentheses or brackets is a note on the one outside them
//   ("34.12 (40.94 inc VAT)");
// * an amount labelled as a former or list price is not the current one
//   ("Was $120.00 Now $60.00", "UVP 49,99 € 39,99 €");
// * an amount labelled as excluding tax is not what is paid when an amount
//   without that label is there ("EUR29.66 (inc VAT) EUR24.71 (exc VAT)").

export interface PlacedAmount {
  /** offsets of the amount with its currency sign or code (end exclusive) */
  readonly start: number;
  readonly end: number;
}

const OLD_LABELS = 'was|previously|rrp|msrp|uvp|statt|old price|regular price|reg\\.|list price|compare at|ancien prix|было';
const OLD_BEFORE = new RegExp(`(?:^|[^\\p{L}])(?:${OLD_LABELS})[\\s:]*$`, 'iu');

const TAXES = 'vat|tax|taxes|gst|mwst\\.?|tva|iva|dph|btw';
const EXCLUDING = '\\+|plus|ex\\.?|exc\\.?|excl\\.?|excluding|zzgl\\.?|without|bez|hors';
const EX_TAX_AFTER = new RegExp(`^[\\s(\\[]*(?:(?:${EXCLUDING})\\s*(?:${TAXES})|ht|netto|pre-tax|before tax)(?!\\p{L})`, 'iu');
/** how far from an amount (before it, or after it) its label is looked for */
const LABEL_REACH = 40;

function insideBrackets(text: string, items: readonly PlacedAmount[]): boolean[] {
  let depth = 0;
  let at = 0;
  return items.map((item) => {
    for (; at < item.start; at++) {
      const ch = text[at];
      if (ch === '(' || ch === '[') depth++;
      else if ((ch === ')' || ch === ']') && depth > 0) depth--;
    }
    return depth > 0;
  });
}

function labelledOld(text: string, items: readonly PlacedAmount[]): boolean[] {
  return items.map((item, i) => {
    const from = Math.max(items[i - 1]?.end ?? 0, item.start - LABEL_REACH);
    return OLD_BEFORE.test(text.slice(from, item.start));
  });
}

function labelledExTax(text: string, items: readonly PlacedAmount[]): boolean[] {
  return items.map((item, i) => EX_TAX_AFTER.test(text.slice(item.end, Math.min(items[i + 1]?.start ?? Infinity, item.end + LABEL_REACH))));
}

export interface CurrentPrices<T> {
  /** the amounts (in text order) that may be the price asked now */
  kept: T[];
  /** what was set aside and why, for the display ("set aside: 40.94 in parentheses"); null when nothing was */
  note: string | null;
}

const RULES: [(text: string, items: readonly PlacedAmount[]) => boolean[], string][] = [
  [insideBrackets, 'in parentheses'],
  [labelledOld, 'labelled as a former price'],
  [labelledExTax, 'labelled as excluding tax'],
];

/** the display names at most this many amounts set aside by one rule */
const NAMED = 3;

export function currentPrices<T extends PlacedAmount>(text: string, items: readonly T[]): CurrentPrices<T> {
  let kept: T[] = [...items];
  const notes: string[] = [];
  for (const [setAside, why] of RULES) {
    const flags = setAside(text, kept);
    const rest = kept.filter((_, i) => !flags[i]);
    if (rest.length === 0 || rest.length === kept.length) continue;
    const aside = kept.filter((_, i) => flags[i]).map((item) => text.slice(item.start, item.end));
    const named = aside.length > NAMED ? `${aside.slice(0, NAMED).join(', ')} and ${aside.length - NAMED} more` : aside.join(', ');
    notes.push(`${named} ${why}`);
    kept = rest;
  }
  return { kept, note: notes.length > 0 ? `set aside: ${notes.join('; ')}` : null };
}

// Amounts that are never the item's price on a whole page, even when nothing
// else is left: what shipping costs, one instalment of a payment plan, and a
// price per unit of measure (a whole-page target reads the item's price; a
// selector-scope target on such an element still reads it).
const SHIPPING = [
  'shipping|delivery|postage|p&p|versand|versandkosten|lieferung|livraison|frais de port|spedizione|envío|envio|frete',
  'wysyłka|dostawa|doprava|poštovné|verzending|verzendkosten|frakt|toimitus|szállítás|kargo|доставка|משלוח',
  '運費|运费|宅配|郵資|邮费|送料|配送料|배송비',
].join('|');
const SHIPPING_BEFORE = new RegExp(`(?:^|[^\\p{L}])(?:${SHIPPING})(?:\\s+\\p{L}+)?[\\s:]*$`, 'iu');
const INSTALMENT_BEFORE =
  /(?:^|[^\p{L}])(?:每期|分期|月々|monthly|per month|mensualités?|cuotas? de|parcelas? de|raty?|rate da)[\s:]*$|\d\s?[x×]\s*$/iu;
const PERIOD_AFTER =
  /^\s*(?:\/\s*(?:mo|month|mese|monat|mois|mes|mês|miesiąc|m-c|měsíc|kk|月|월)\b|(?:per|a|al|pro|par) (?:month|mese|monat|mois|mes)\b|monatlich|miesięcznie|x\s*\d)/iu;
const UNIT_AFTER =
  /^\s*(?:\/|per\s|je\s|pro\s|za\s)\s*(?:\d+\s?)?(?:kg|g|l|ml|cl|m|m²|m2|m³|szt\.?|pc|pcs|st|stk|stück|unit|item|piece|lb|oz)(?![\p{L}\p{N}])/iu;

function notPrice(text: string, item: PlacedAmount, previousEnd: number): boolean {
  const before = text.slice(Math.max(previousEnd, item.start - LABEL_REACH), item.start);
  const after = text.slice(item.end, item.end + LABEL_REACH);
  return SHIPPING_BEFORE.test(before) || INSTALMENT_BEFORE.test(before) || PERIOD_AFTER.test(after) || UNIT_AFTER.test(after);
}

const SHIPPING_LABEL = new RegExp(`^(?:${SHIPPING})(?:\\s+\\p{L}+)?[\\s:]*$`, 'iu');

/** A label's words (its visible text as `textOf` reads it); letters spaced out for layout in Chinese ("運\u3000\u3000費") read as the word. */
function labelText(label: Element, textOf: (el: Element) => string): string {
  return textOf(label)
    .trim()
    .replace(/\s+/gu, ' ')
    .replace(/(?<=\p{Script=Han}) (?=\p{Script=Han})/gu, '');
}

/**
 * A table row labelled as shipping ("Shipping | Standard 4.95 € / Express
 * 9.95 €"): on a whole page none of its amounts is the item's price, however
 * many delivery options it lists after the label. `textOf` reads an element's visible text.
 */
export function isShippingRow(el: Element, textOf: (el: Element) => string): boolean {
  if (el.name !== 'tr') return false;
  const label = el.children.find((child): child is Element => isElement(child) && (child.name === 'th' || child.name === 'td'));
  return label !== undefined && SHIPPING_LABEL.test(labelText(label, textOf));
}

/** The amounts of a whole page's text that may be the item's price: without shipping costs, instalments and unit prices. */
export function itemPrices<T extends PlacedAmount>(text: string, items: readonly T[]): T[] {
  return items.filter((item, i) => !notPrice(text, item, items[i - 1]?.end ?? 0));
}
