import type { Element } from 'domhandler';
import { extractAvailability } from './availability.ts';
import type { ParsedPage } from './parse-page.ts';
import { extractPrice } from './price.ts';
import { findPriceMentions } from './price-text.ts';
import { jsonLdFacts, metaFacts, microdataFacts } from './structured-data.ts';
import { visibleText } from './visible-text.ts';

// Which of the preview's price and stock elements show the main offer: the
// first, in page order, that a selector-scope target reads as the same value
// a whole-page target reads. A user who picks it gets what the whole-page
// target would report, so the guided flow and whole-page targets agree.
// Price elements are tried in the currencies the page names (pageCurrencies),
// the first that gives a whole-page price deciding.

/** how many currencies a page's price elements are tried in */
const MAX_CURRENCIES = 3;

/**
 * The currencies the page names, most telling first: its structured data's,
 * then by the elements' signs, a sign naming few currencies ("元": CNY or
 * TWD) counting for more than one naming many ("$": 35 of them).
 */
function pageCurrencies(page: ParsedPage, priceElements: readonly Element[]): string[] {
  const stated = new Set<string>();
  const structured = [jsonLdFacts(page), microdataFacts(page.document.children, undefined), metaFacts(page)];
  for (const price of structured.flatMap((facts) => facts.prices)) for (const code of price.codes ?? []) stated.add(code);
  const votes = new Map<string, number>();
  for (const el of priceElements) {
    for (const { currency } of findPriceMentions(visibleText([el]))) {
      for (const code of currency.codes) votes.set(code, (votes.get(code) ?? 0) + 1 / currency.codes.length);
    }
  }
  const voted = [...votes].sort((a, b) => b[1] - a[1]).map(([code]) => code);
  return [...new Set([...stated, ...voted])].slice(0, MAX_CURRENCIES);
}

function mainPriceElement(page: ParsedPage, priceElements: readonly Element[]): Element | null {
  for (const currency of pageCurrencies(page, priceElements)) {
    const whole = extractPrice(page, null, currency, undefined);
    if (!whole.ok) continue;
    return (
      priceElements.find((el) => {
        const own = extractPrice(page, [el], currency, undefined);
        return own.ok && own.minor === whole.minor;
      }) ?? null
    );
  }
  return null;
}

function mainStockElement(page: ParsedPage, stockElements: readonly Element[]): Element | null {
  const whole = extractAvailability(page, null);
  if (whole === null) return null;
  return stockElements.find((el) => extractAvailability(page, [el]) === whole) ?? null;
}

/** The main offer's price and stock elements among the given ones (each in page order); null where none agrees. */
export function mainOfferElements(
  page: ParsedPage,
  priceElements: readonly Element[],
  stockElements: readonly Element[],
): { price: Element | null; stock: Element | null } {
  return { price: mainPriceElement(page, priceElements), stock: mainStockElement(page, stockElements) };
}
