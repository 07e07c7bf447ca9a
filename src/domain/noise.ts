import { RE2JS } from 're2js';
import type { FieldDetail } from '../errors.ts';
import { joinAcrossRemoval } from './ignore-seams.ts';

// Noise suppression of a target: `ignore` patterns are removed from what a
// text target observes (and drop the links a links target would report)
// before any comparison, so a rotating token, a timestamp or "12 people are
// viewing this" never becomes a change. A pattern is literal text or a
// regular expression. Expressions run on RE2 (re2js): its matching takes time
// linear in the text whatever the pattern, so no pattern can stall a thread
// and none needs to be judged for its cost; the price is RE2's syntax, which
// has no backreferences and no lookaround.

export type IgnorePattern = { text: string } | { regex: string };

export const MAX_IGNORE_PATTERNS = 10;
/** How long after a confirm target first sees a new value its monitor is checked again. */
export const CONFIRM_RECHECK_SECONDS = 120;
export const MAX_PATTERN_CHARS = 200;

// JavaScript syntax RE2 has no equivalent for, named so the refusal says why.
const UNSUPPORTED = [
  { construct: /\\[1-9]|\\k</, name: 'backreferences' },
  { construct: /\(\?<?[=!]/, name: 'lookahead and lookbehind' },
];

/** The pattern compiled for RE2: literal text matches as written; an expression matches case-insensitively. */
export function ignoreExpression(pattern: IgnorePattern): RE2JS {
  if ('text' in pattern) return RE2JS.compile(RE2JS.quote(pattern.text));
  // JavaScript spellings RE2 writes otherwise ((?<name>…), \u{…}) are translated first.
  return RE2JS.compile(RE2JS.translateRegExp(pattern.regex), RE2JS.CASE_INSENSITIVE);
}

/** Why each pattern is refused, as field details of `at` (e.g. "targets[0].ignore"). */
export function ignorePatternProblems(patterns: readonly IgnorePattern[], at: string): FieldDetail[] {
  const details: FieldDetail[] = [];
  patterns.forEach((pattern, i) => {
    if (!('regex' in pattern)) return;
    const field = `${at}[${i}].regex`;
    const unsupported = UNSUPPORTED.find(({ construct }) => construct.test(pattern.regex));
    if (unsupported) {
      details.push({ field, message: `uses ${unsupported.name}, which ignore expressions do not support (RE2 syntax)` });
      return;
    }
    try {
      ignoreExpression(pattern);
    } catch (err) {
      details.push({ field, message: `is not a valid regular expression (RE2 syntax): ${(err as Error).message}` });
    }
  });
  return details;
}

/** The text with every ignored part removed, and the punctuation that only framed a removed part with it (lines kept; values are normalised afterwards). */
export function withoutIgnored(text: string, patterns: readonly IgnorePattern[] | undefined): string {
  if (!patterns?.length) return text;
  let out = text;
  for (const pattern of patterns) out = removeMatches(out, ignoreExpression(pattern));
  return out;
}

function removeMatches(text: string, expression: RE2JS): string {
  const matcher = expression.matcher(text);
  // What stays, cut at each removal; adjacent matches are one removal.
  const kept: string[] = [];
  let from = 0;
  while (matcher.find()) {
    const start = matcher.start();
    const end = matcher.end();
    if (end === start) continue;
    if (start > from || kept.length === 0) kept.push(text.slice(from, start));
    from = end;
  }
  if (kept.length === 0) return text;
  kept.push(text.slice(from));
  return kept.reduce((left, right) => joinAcrossRemoval(left, right));
}

/** The links no ignore pattern matches. */
export function linksNotIgnored(links: readonly string[], patterns: readonly IgnorePattern[] | undefined): string[] {
  if (!patterns?.length) return [...links];
  const compiled = patterns.map(ignoreExpression);
  return links.filter((link) => compiled.every((re) => !re.test(link)));
}
