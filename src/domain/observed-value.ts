import type { TargetKind } from './targets.ts';

// The value a capture observed for one target, per kind (DESIGN §4).
//
// Price is a plain integer of minor currency units (29.00 in a two-decimal
// currency is 2900), the specification's own shape for price observations.
// The currency lives on the target: extraction records a `currency_mismatch`
// issue instead of producing a value in another currency, so every value of a
// target shares the target's currency. A target whose currency is edited is a
// new target for change detection (its baseline is reseeded by the caller).

export type Availability = 'in_stock' | 'out_of_stock';

export interface ObservedValueByKind {
  /** visible text, whitespace collapsed (see normaliseText) */
  text: string;
  /** integer minor units of the target's currency */
  price: number;
  availability: Availability;
  /** absolute URLs, sorted, without duplicates (see normaliseLinks) */
  links: string[];
}

export type ObservedValue = ObservedValueByKind[TargetKind];

/**
 * Collapses every run of whitespace (including no-break and other Unicode
 * spaces) to one space and trims, after NFC normalisation so that composed
 * and decomposed accents compare equal. Layout-only differences between two
 * loads of the same page are therefore not changes.
 */
export function normaliseText(text: string): string {
  return text.normalize('NFC').replace(/\s+/gu, ' ').trim();
}

/** The links value's canonical form: a sorted list of distinct URLs. */
export function normaliseLinks(links: readonly string[]): string[] {
  return [...new Set(links)].sort();
}

/**
 * Narrows an untyped value (for instance a baseline read back from JSON) to
 * the value shape of a kind. Prices must be non-negative safe integers.
 */
export function isObservedValue<K extends TargetKind>(kind: K, value: unknown): value is ObservedValueByKind[K] {
  switch (kind) {
    case 'text':
      return typeof value === 'string';
    case 'price':
      return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
    case 'availability':
      return value === 'in_stock' || value === 'out_of_stock';
    case 'links':
      return Array.isArray(value) && value.every((url) => typeof url === 'string');
    default:
      return false;
  }
}

/**
 * Returns the value narrowed to its kind's shape, or throws: a value of the
 * wrong shape for its target is a programming or data error, never a change.
 */
export function valueOfKind<K extends TargetKind>(kind: K, value: unknown): ObservedValueByKind[K] {
  if (!isObservedValue(kind, value)) {
    throw new TypeError(`not a ${kind} value: ${JSON.stringify(value)}`);
  }
  return value;
}

/**
 * Whether two values of a kind are the same observation: text after
 * normaliseText, links as sets of URLs (order and duplicates ignored), price
 * and availability exactly.
 */
export function valuesEqual(kind: TargetKind, a: ObservedValue, b: ObservedValue): boolean {
  switch (kind) {
    case 'text':
      return normaliseText(valueOfKind('text', a)) === normaliseText(valueOfKind('text', b));
    case 'price':
      return valueOfKind('price', a) === valueOfKind('price', b);
    case 'availability':
      return valueOfKind('availability', a) === valueOfKind('availability', b);
    case 'links': {
      const left = normaliseLinks(valueOfKind('links', a));
      const right = normaliseLinks(valueOfKind('links', b));
      return left.length === right.length && left.every((url, i) => url === right[i]);
    }
  }
}
