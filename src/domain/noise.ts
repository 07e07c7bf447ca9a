import safeRegex from 'safe-regex2';
import type { FieldDetail } from '../errors.ts';

// Noise suppression of a target: `ignore` patterns are removed from what a
// text target observes (and drop the links a links target would report)
// before any comparison, so a rotating token, a timestamp or "12 people are
// viewing this" never becomes a change. A pattern is literal text or a
// regular expression; expressions are refused when their matching could
// backtrack catastrophically (nested quantifiers, backreferences, lookaround).

export type IgnorePattern = { text: string } | { regex: string };

export const MAX_IGNORE_PATTERNS = 10;
/** How long after a confirm target first sees a new value its monitor is checked again. */
export const CONFIRM_RECHECK_SECONDS = 120;
export const MAX_PATTERN_CHARS = 200;

// Constructs whose cost the star-height check cannot bound: backreferences,
// lookaround, and a repeated group of alternatives (which may overlap).
const UNBOUNDED_CONSTRUCTS = [/\\[1-9]|\\k</, /\(\?<?[=!]/, /\([^()]*\|[^()]*\)(?:[*+?]|\{\d)/];

/** Literal text matches as written; an expression matches case-insensitively. */
function compile(pattern: IgnorePattern, flags = 'g'): RegExp {
  if ('text' in pattern) return new RegExp(pattern.text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), `${flags}u`);
  return new RegExp(pattern.regex, `${flags}iu`);
}

/** Why each pattern is refused, as field details of `at` (e.g. "targets[0].ignore"). */
export function ignorePatternProblems(patterns: readonly IgnorePattern[], at: string): FieldDetail[] {
  const details: FieldDetail[] = [];
  patterns.forEach((pattern, i) => {
    if (!('regex' in pattern)) return;
    const field = `${at}[${i}].regex`;
    try {
      compile(pattern);
    } catch (err) {
      details.push({ field, message: `is not a valid regular expression: ${(err as Error).message}` });
      return;
    }
    if (UNBOUNDED_CONSTRUCTS.some((construct) => construct.test(pattern.regex)) || !safeRegex(pattern.regex)) {
      details.push({
        field,
        message: 'could take exponential time on some pages (nested quantifiers, backreferences or lookaround); simplify it',
      });
    }
  });
  return details;
}

/** The text with every ignored part removed (lines kept; values are normalised afterwards). */
export function withoutIgnored(text: string, patterns: readonly IgnorePattern[] | undefined): string {
  if (!patterns?.length) return text;
  let out = text;
  for (const pattern of patterns) out = out.replace(compile(pattern), '');
  return out;
}

/** The links no ignore pattern matches. */
export function linksNotIgnored(links: readonly string[], patterns: readonly IgnorePattern[] | undefined): string[] {
  if (!patterns?.length) return [...links];
  const compiled = patterns.map((pattern) => compile(pattern, ''));
  return links.filter((link) => compiled.every((re) => !re.test(link)));
}
