import type { AnyNode } from 'domhandler';
import type { IssueCode } from '../issues.ts';
import { linksNotIgnored, withoutIgnored } from '../noise.ts';
import { normaliseText } from '../observed-value.ts';
import type { Target } from '../targets.ts';
import { extractAvailability } from './availability.ts';
import { collectLinks } from './links.ts';
import { formatMinorUnits } from './money.ts';
import type { ParsedPage } from './parse-page.ts';
import { extractPrice } from './price.ts';
import { selectElements } from './select.ts';
import { pageTextView } from './page-text.ts';
import { capString, displayLinks, failed, linksOutcome, MAX_LINKS, succeeded, type TargetExtraction } from './target-extraction.ts';
import { visibleText } from './visible-text.ts';
import { selectXPath } from './xpath.ts';

// One target evaluated on one parsed HTML page (DESIGN §4): the whole page, or
// the nodes a CSS selector or an XPath expression selects.

type Scope = { ok: true; roots: AnyNode[] | null } | { ok: false; code: IssueCode; message: string };

/** The nodes a target reads: null for the whole page, else the selected elements. */
function resolveScope(page: ParsedPage, target: Target): Scope {
  const selection = target.selection;
  if (selection.scope === 'page') return { ok: true, roots: null };
  if (selection.scope === 'json') {
    return {
      ok: false,
      code: 'selector_missing',
      message: 'the page is HTML, not a JSON document: choose a selector or an XPath expression',
    };
  }
  const [named, selected] =
    selection.scope === 'selector'
      ? [`the selector ${selection.selector}`, selectElements(page, selection.selector)]
      : [`the XPath expression ${selection.expression}`, selectXPath(page, selection.expression)];
  if (!selected.ok) return { ok: false, code: selected.code, message: selected.message };
  const count = selected.elements.length;
  if (count === 0) return { ok: false, code: 'selector_missing', message: `${named} matches no element` };
  if (count > 1 && target.kind !== 'links') {
    return { ok: false, code: 'selector_ambiguous', message: `${named} matches ${count} elements, not one` };
  }
  return { ok: true, roots: selected.elements };
}

export function extractTarget(page: ParsedPage, target: Target): TargetExtraction {
  const scope = resolveScope(page, target);
  if (!scope.ok) return failed(target, scope.code, scope.message, null);
  const roots = scope.roots;
  // several selected elements (links) each become a line of their own
  const text = roots
    ? roots
        .map((root) => visibleText([root]))
        .filter((t) => t !== '')
        .join('\n')
    : pageTextView(page, 'plain').text;

  switch (target.kind) {
    case 'text': {
      const observed = withoutIgnored(text, target.ignore);
      const value = capString(normaliseText(observed));
      return succeeded(target, value, value, observed);
    }
    case 'price': {
      const price = extractPrice(page, roots, target.currency, target.decimal);
      if (!price.ok) return failed(target, price.code, price.message, text);
      const display = formatMinorUnits(price.minor, price.currency);
      return succeeded(target, price.minor, price.reading ? `${display} (${price.reading})` : display, text);
    }
    case 'availability': {
      const availability = extractAvailability(page, roots);
      if (availability === null) {
        return failed(target, 'availability_unknown', 'neither structured data nor the wording states whether the item is in stock', text);
      }
      return succeeded(target, availability, availability === 'in_stock' ? 'In stock' : 'Out of stock', text);
    }
    case 'links':
      return linksOutcome(target, linksNotIgnored(collectLinks(page, roots ?? page.document.children, target.match), target.ignore), text);
  }
}

/** What an evaluate answer shows of an extraction: a links value cut to its first MAX_LINKS. */
export function evaluationAnswer(extraction: TargetExtraction): Omit<TargetExtraction, 'text'> {
  const { text: _text, ...answer } = extraction;
  if (!Array.isArray(answer.value)) return answer;
  const shown = answer.value.slice(0, MAX_LINKS);
  return { ...answer, value: shown, display: displayLinks(shown), links: shown };
}
