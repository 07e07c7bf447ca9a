import type { AnyNode } from 'domhandler';
import type { CheckIssue, IssueCode } from '../issues.ts';
import { linksNotIgnored, withoutIgnored } from '../noise.ts';
import { normaliseText } from '../observed-value.ts';
import { MAX_WATCHED_LINKS } from '../plans.ts';
import type { Target } from '../targets.ts';
import { extractAvailability } from './availability.ts';
import { collectLinks } from './links.ts';
import { formatMinorUnits } from './money.ts';
import type { ParsedPage } from './parse-page.ts';
import { extractPrice } from './price.ts';
import { selectElements } from './select.ts';
import { perPage } from './per-page.ts';
import { visibleText } from './visible-text.ts';

// One target evaluated on one parsed page: the observed value, its display
// form, and the issues that stopped a value from being determined. Values are
// never guessed: an issue leaves `value` null.

/** Text values and displays are capped at this many characters (specification: "strings capped at 1,500"). */
export const MAX_STRING_CHARS = 1500;
/** An evaluate answer shows at most this many links (specification: "links at 10"); a monitor watches them all. */
export const MAX_LINKS = 10;

export interface TargetExtraction {
  target_id: string;
  /** false when an issue prevented a value */
  ok: boolean;
  /** text: normalised text; price: integer minor units; availability: 'in_stock' | 'out_of_stock'; links: every link, sorted absolute URLs */
  value: string | number | string[] | null;
  display: string | null;
  /** links targets only: the first MAX_LINKS of the value */
  links: string[] | null;
  issues: CheckIssue[];
  /** the visible text of the selection, uncapped: the captured text that change diffs are made from */
  text: string | null;
}

/** Cuts to at most `max` UTF-16 units without splitting a surrogate pair. */
export function capString(text: string, max: number = MAX_STRING_CHARS): string {
  if (text.length <= max) return text;
  const code = text.charCodeAt(max - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}

function displayLinks(links: readonly string[]): string {
  let out = '';
  for (const link of links) {
    const next = out === '' ? link : `${out}\n${link}`;
    if (next.length > MAX_STRING_CHARS) break;
    out = next;
  }
  return out === '' ? capString(links[0] ?? '') : out;
}

type Scope = { ok: true; roots: AnyNode[] | null } | { ok: false; code: IssueCode; message: string };

/** The nodes a target reads: null for the whole page, else the selected elements. */
function resolveScope(page: ParsedPage, target: Target): Scope {
  if (target.selection.scope === 'page') return { ok: true, roots: null };
  const { selector } = target.selection;
  const selected = selectElements(page, selector);
  if (!selected.ok) return { ok: false, code: selected.code, message: selected.message };
  const count = selected.elements.length;
  if (count === 0) return { ok: false, code: 'selector_missing', message: `the selector ${selector} matches no element` };
  if (count > 1 && target.kind !== 'links') {
    return { ok: false, code: 'selector_ambiguous', message: `the selector ${selector} matches ${count} elements, not one` };
  }
  return { ok: true, roots: selected.elements };
}

function failed(target: Target, code: IssueCode, message: string, text: string | null): TargetExtraction {
  return {
    target_id: target.id,
    ok: false,
    value: null,
    display: null,
    links: null,
    issues: [{ target_id: target.id, code, message }],
    text,
  };
}

function succeeded(
  target: Target,
  value: string | number | string[],
  display: string,
  text: string,
  links: string[] | null = null,
): TargetExtraction {
  return { target_id: target.id, ok: true, value, display, links, issues: [], text };
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
    : perPage(page, 'visible text', () => visibleText(page.document.children));

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
    case 'links': {
      const all = linksNotIgnored(collectLinks(page, roots ?? page.document.children, target.match), target.ignore);
      if (all.length === 0) {
        const matching = target.match === undefined ? '' : ` containing "${target.match}"`;
        return failed(target, 'links_missing', `no http(s) links${matching} found`, text);
      }
      if (all.length > MAX_WATCHED_LINKS) {
        return failed(
          target,
          'links_too_many',
          `the selection holds ${all.length} links, more than the ${MAX_WATCHED_LINKS} a links target watches: narrow the selector or set match`,
          text,
        );
      }
      return succeeded(target, all, displayLinks(all), text, all.slice(0, MAX_LINKS));
    }
  }
}

/** What an evaluate answer shows of an extraction: a links value cut to its first MAX_LINKS. */
export function evaluationAnswer(extraction: TargetExtraction): Omit<TargetExtraction, 'text'> {
  const { text: _text, ...answer } = extraction;
  if (!Array.isArray(answer.value)) return answer;
  const shown = answer.value.slice(0, MAX_LINKS);
  return { ...answer, value: shown, display: displayLinks(shown), links: shown };
}
