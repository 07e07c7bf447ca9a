// The extraction domain's public surface: pure functions from a page's HTML to
// target values, check issues and the preview's element list (DESIGN §4).

export { parsePage, pageTitle, type ParsedPage } from './parse-page.ts';
export { evaluationAnswer, extractTarget } from './extract-target.ts';
export { MAX_LINKS, MAX_STRING_CHARS, type TargetExtraction } from './target-extraction.ts';
export { containsPhrase } from './phrase.ts';
export { listElements, MAX_PREVIEW_ELEMENTS, type ElementHint, type PreviewElement } from './preview-elements.ts';
export { currencyExponent, decimalToMinorUnits, formatMinorUnits, isPriceCurrency } from './money.ts';
export { parsePriceText, type PriceText } from './price-text.ts';
export type { Availability } from '../observed-value.ts';
export {
  extractFromDocument,
  outlineDocument,
  readDocument,
  readsPageText,
  readTextDocument,
  type DocumentOutline,
  type ParsedDocument,
} from './document.ts';
