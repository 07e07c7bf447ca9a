import type { CheckIssue, IssueCode } from '../issues.ts';
import { MAX_WATCHED_LINKS } from '../plans.ts';
import type { Target } from '../targets.ts';

// What reading one target yields, whatever the document (HTML, JSON, PDF): the
// observed value, its display form, and the issues that stopped a value from
// being determined. Values are never guessed: an issue leaves `value` null.

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

export function displayLinks(links: readonly string[]): string {
  let out = '';
  for (const link of links) {
    const next = out === '' ? link : `${out}\n${link}`;
    if (next.length > MAX_STRING_CHARS) break;
    out = next;
  }
  return out === '' ? capString(links[0] ?? '') : out;
}

export function failed(target: Target, code: IssueCode, message: string, text: string | null): TargetExtraction {
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

export function succeeded(
  target: Target,
  value: string | number | string[],
  display: string,
  text: string,
  links: string[] | null = null,
): TargetExtraction {
  return { target_id: target.id, ok: true, value, display, links, issues: [], text };
}

/** A links target's outcome from every link found (already filtered by match and ignore): none and too many are issues. */
export function linksOutcome(target: Target, all: string[], text: string): TargetExtraction {
  if (all.length === 0) {
    const matching = target.match === undefined ? '' : ` containing "${target.match}"`;
    return failed(target, 'links_missing', `no http(s) links${matching} found`, text);
  }
  if (all.length > MAX_WATCHED_LINKS) {
    return failed(
      target,
      'links_too_many',
      `the selection holds ${all.length} links, more than the ${MAX_WATCHED_LINKS} a links target watches: narrow the selection or set match`,
      text,
    );
  }
  return succeeded(target, all, displayLinks(all), text, all.slice(0, MAX_LINKS));
}
