import { linksNotIgnored, withoutIgnored } from '../noise.ts';
import { normaliseText } from '../observed-value.ts';
import type { Target } from '../targets.ts';
import { canonicalJsonText, type JsonValue } from './json-document.ts';
import { jsonPrice } from './json-price.ts';
import { selectJson } from './json-path.ts';
import { formatMinorUnits } from './money.ts';
import { availabilityFromSchema } from './schema-availability.ts';
import { stockFromText } from './stock-text.ts';
import { capString, failed, linksOutcome, succeeded, type TargetExtraction } from './target-extraction.ts';

// One target read from a JSON document: a json selection's path names the
// value (a page selection is the whole document, "$"); text is the value as
// canonical JSON, price a number or a price text, availability a boolean or a
// stock word, links the http(s) URLs among the strings the path selects.

function selectedValues(document: JsonValue, target: Target): { ok: true; values: JsonValue[] } | TargetExtraction {
  const selection = target.selection;
  if (selection.scope === 'page') return { ok: true, values: [document] };
  if (selection.scope !== 'json') {
    return failed(target, 'selector_missing', 'the document is JSON: choose a value with a json selection (a JSONPath)', null);
  }
  const selected = selectJson(document, selection.path);
  if (!selected.ok) return failed(target, selected.code, selected.message, null);
  const count = selected.values.length;
  if (count === 0) return failed(target, 'selector_missing', `the path ${selection.path} selects no value`, null);
  if (count > 1 && target.kind !== 'links') {
    return failed(target, 'selector_ambiguous', `the path ${selection.path} selects ${count} values, not one`, null);
  }
  return selected;
}

/** Every http(s) URL among the strings in the values (in arrays and objects too), distinct and sorted. */
function urlStrings(values: readonly JsonValue[], match: string | undefined): string[] {
  const urls = new Set<string>();
  const pending = [...values];
  for (let value = pending.pop(); value !== undefined; value = pending.pop()) {
    if (typeof value === 'string') {
      if (!URL.canParse(value)) continue;
      const url = new URL(value);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') continue;
      url.hash = '';
      if (match === undefined || url.href.includes(match)) urls.add(url.href);
    } else if (value !== null && typeof value === 'object') pending.push(...Object.values(value));
  }
  return [...urls].sort();
}

function availabilityOf(value: JsonValue): 'in_stock' | 'out_of_stock' | null {
  if (typeof value === 'boolean') return value ? 'in_stock' : 'out_of_stock';
  if (typeof value === 'string') return availabilityFromSchema(value) ?? stockFromText(value);
  return null;
}

export function extractJsonTarget(document: JsonValue, target: Target): TargetExtraction {
  const selected = selectedValues(document, target);
  if (!('values' in selected)) return selected;
  const text = selected.values.map(canonicalJsonText).join('\n');
  const [value] = selected.values as [JsonValue];
  switch (target.kind) {
    case 'text': {
      const observed = withoutIgnored(text, target.ignore);
      const shown = capString(normaliseText(observed));
      return succeeded(target, shown, shown, observed);
    }
    case 'price': {
      const price = jsonPrice(value, target.currency, target.decimal);
      if (!price.ok) return failed(target, price.code, price.message, text);
      return succeeded(target, price.minor, formatMinorUnits(price.minor, price.currency), text);
    }
    case 'availability': {
      const availability = availabilityOf(value);
      if (availability === null) {
        return failed(target, 'availability_unknown', `${capString(text, 200)} is neither a boolean nor a stock state`, text);
      }
      return succeeded(target, availability, availability === 'in_stock' ? 'In stock' : 'Out of stock', text);
    }
    case 'links':
      return linksOutcome(target, linksNotIgnored(urlStrings(selected.values, target.match), target.ignore), text);
  }
}
