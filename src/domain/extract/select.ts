import { compile, selectAll } from 'css-select';
import { parse, type Selector } from 'css-what';
import type { AnyNode, Element } from 'domhandler';
import type { ParsedPage } from './parse-page.ts';

// Runs a caller's CSS selector. A selector css-select cannot compile (bad
// syntax, an unsupported pseudo-class) is reported, never thrown. Matching a
// descendant (or general sibling) combinator backtracks over every ancestor
// (or earlier sibling): on deep pages each one multiplies the cost about ten
// times, so a selector may hold only a few of them, and no :has().

export const SELECTOR_LIMITS = {
  /** comma-separated alternatives */
  groups: 5,
  /** descendant (" ") and general sibling ("~") combinators, in all alternatives and :not()/:is() together */
  backtrackingCombinators: 3,
} as const;

export type SelectorProblem = { code: 'selector_invalid' | 'selector_too_costly'; message: string };
export type SelectResult = { ok: true; elements: Element[] } | ({ ok: false } & SelectorProblem);

function backtracking(groups: Selector[][]): number {
  let count = 0;
  for (const group of groups) {
    for (const token of group) {
      if (token.type === 'descendant' || token.type === 'sibling') count += 1;
      if (token.type === 'pseudo' && Array.isArray(token.data)) count += backtracking(token.data);
    }
  }
  return count;
}

function usesHas(groups: Selector[][]): boolean {
  return groups.some((group) => group.some((t) => t.type === 'pseudo' && (t.name === 'has' || (Array.isArray(t.data) && usesHas(t.data)))));
}

/** Why a selector cannot be used, or null: not valid CSS, or too costly to match (SELECTOR_LIMITS). */
export function selectorProblem(selector: string): SelectorProblem | null {
  let groups: Selector[][];
  try {
    groups = parse(selector);
    compile(selector);
  } catch (error) {
    return {
      code: 'selector_invalid',
      message: `the selector is not valid CSS: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
  const { groups: maxGroups, backtrackingCombinators: maxBacktracking } = SELECTOR_LIMITS;
  if (groups.length > maxGroups) {
    return { code: 'selector_too_costly', message: `the selector has ${groups.length} alternatives; at most ${maxGroups}` };
  }
  if (usesHas(groups)) return { code: 'selector_too_costly', message: ':has() is not supported: its cost grows with the page' };
  const combinators = backtracking(groups);
  if (combinators > maxBacktracking) {
    return {
      code: 'selector_too_costly',
      message: `the selector has ${combinators} descendant or "~" combinators; at most ${maxBacktracking} (use ">" for direct children)`,
    };
  }
  return null;
}

export function selectElements(page: ParsedPage, selector: string): SelectResult {
  const problem = selectorProblem(selector);
  if (problem) return { ok: false, ...problem };
  return { ok: true, elements: selectAll<AnyNode, Element>(selector, page.document) };
}
