import { compile, selectAll } from 'css-select';
import { isTraversal, parse, type Selector } from 'css-what';
import type { AnyNode, Element } from 'domhandler';
import type { ParsedPage } from './parse-page.ts';

// Runs a caller's CSS selector. A selector css-select cannot compile (bad
// syntax, an unsupported pseudo-class) is reported, never thrown. Matching a
// descendant (or general sibling) combinator backtracks over every ancestor
// (or earlier sibling): on deep pages each one multiplies the cost about ten
// times, so a selector may hold only a few of them, and no :has(). The limits
// apply to the whole parse tree: selectors nested in :is(), :where(), :not()
// and :nth-child(… of …) run once per candidate element (the "of" one once
// per sibling), so they count as much as top-level ones.

export const SELECTOR_LIMITS = {
  /** comma-separated alternatives in any one selector list (top level or nested) */
  groups: 5,
  /** descendant (" ") and general sibling ("~") combinators and :nth-child(… of …) sibling scans, in the whole tree */
  backtrackingCombinators: 3,
  /** selector lists nested in pseudo-classes inside one another */
  nesting: 2,
} as const;

export type SelectorProblem = { code: 'selector_invalid' | 'selector_too_costly'; message: string };
export type SelectResult = { ok: true; elements: Element[] } | ({ ok: false } & SelectorProblem);

type TreeCost = { backtracking: number; depth: number; widestList: number; usesHas: boolean; incomplete: boolean };

// css-select's own pattern for the "An+B of S" argument.
const NTH_OF = /^(.+?)\s+of\s+(.+)$/is;

function nestedLists(token: Selector): Selector[][] | null {
  if (token.type !== 'pseudo') return null;
  if (Array.isArray(token.data)) return token.data;
  if ((token.name === 'nth-child' || token.name === 'nth-last-child') && typeof token.data === 'string') {
    const of = NTH_OF.exec(token.data);
    if (of) return parse(of[2]!.trim());
  }
  return null;
}

// An explicit stack, not recursion: the tree is as deep as the caller's nesting.
function treeCost(root: Selector[][]): TreeCost {
  const cost: TreeCost = { backtracking: 0, depth: 0, widestList: 0, usesHas: false, incomplete: false };
  const pending: { groups: Selector[][]; depth: number }[] = [{ groups: root, depth: 0 }];
  for (let item = pending.pop(); item; item = pending.pop()) {
    const { groups, depth } = item;
    cost.depth = Math.max(cost.depth, depth);
    cost.widestList = Math.max(cost.widestList, groups.length);
    if (groups.length === 0) cost.incomplete = true;
    for (const group of groups) {
      const last = group.at(-1);
      if (!last || isTraversal(last)) cost.incomplete = true;
      for (const token of group) {
        if (token.type === 'descendant' || token.type === 'sibling') cost.backtracking += 1;
        if (token.type === 'pseudo' && token.name === 'has') cost.usesHas = true;
        const nested = nestedLists(token);
        if (!nested) continue;
        if (token.type === 'pseudo' && !Array.isArray(token.data)) cost.backtracking += 1;
        pending.push({ groups: nested, depth: depth + 1 });
      }
    }
  }
  return cost;
}

function parseChecked(selector: string): Selector[][] | SelectorProblem {
  try {
    const groups = parse(selector);
    compile(selector);
    return groups;
  } catch (error) {
    return {
      code: 'selector_invalid',
      message: `the selector is not valid CSS: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
}

/** Why a selector cannot be used, or null: not valid CSS, or too costly to match (SELECTOR_LIMITS). */
export function selectorProblem(selector: string): SelectorProblem | null {
  const parsed = parseChecked(selector);
  if (!Array.isArray(parsed)) return parsed;
  const cost = treeCost(parsed);
  if (cost.incomplete) {
    return { code: 'selector_invalid', message: 'the selector is not valid CSS: it is empty or ends with a combinator' };
  }
  const { groups: maxGroups, backtrackingCombinators: maxBacktracking, nesting: maxNesting } = SELECTOR_LIMITS;
  if (cost.widestList > maxGroups) {
    return { code: 'selector_too_costly', message: `the selector has ${cost.widestList} alternatives in one list; at most ${maxGroups}` };
  }
  if (cost.usesHas) return { code: 'selector_too_costly', message: ':has() is not supported: its cost grows with the page' };
  if (cost.depth > maxNesting) {
    return { code: 'selector_too_costly', message: `the selector nests pseudo-classes ${cost.depth} deep; at most ${maxNesting}` };
  }
  if (cost.backtracking > maxBacktracking) {
    return {
      code: 'selector_too_costly',
      message:
        `the selector has ${cost.backtracking} descendant or "~" combinators or ":nth-child(… of …)" scans, nested ones included; ` +
        `at most ${maxBacktracking} (use ">" for direct children)`,
    };
  }
  return null;
}

export function selectElements(page: ParsedPage, selector: string): SelectResult {
  const problem = selectorProblem(selector);
  if (problem) return { ok: false, ...problem };
  return { ok: true, elements: selectAll<AnyNode, Element>(selector, page.document) };
}
