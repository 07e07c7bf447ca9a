import { query } from 'jsonpath-rfc9535';
import parseJsonPath from 'jsonpath-rfc9535/parser';
import type { JsonValue } from './json-document.ts';
import type { SelectorProblem } from './select.ts';

// JSONPath (RFC 9535) as a json selection's path, by jsonpath-rfc9535: a
// parser and evaluator of the standard's grammar, no script or eval filters.
// Two things the standard allows are refused: the match() and search()
// functions, whose regular expressions run in JavaScript's backtracking
// engine (elsewhere pagewatch only runs patterns in linear time), and more
// than a few descendant segments ("..") or nested filters, each of which
// multiplies the work by the size of the document.

export const JSON_PATH_LIMITS = {
  /** ".." segments in the whole path, filters included */
  descendantSegments: 3,
  /** filters inside filters */
  filterNesting: 2,
} as const;

const REGEX_FUNCTIONS = new Set(['match', 'search']);

interface PathCost {
  descendants: number;
  filterDepth: number;
  regexFunction: string | null;
}

/** Walks the parsed query's tree (plain objects) with an explicit stack, counting what costs. */
function pathCost(root: unknown): PathCost {
  const cost: PathCost = { descendants: 0, filterDepth: 0, regexFunction: null };
  const pending: { node: unknown; filters: number }[] = [{ node: root, filters: 0 }];
  for (let item = pending.pop(); item; item = pending.pop()) {
    const { node } = item;
    if (node === null || typeof node !== 'object') continue;
    let filters = item.filters;
    const type = (node as { type?: unknown }).type;
    if (type === 'DescendantSegment') cost.descendants += 1;
    if (type === 'FilterSelector') cost.filterDepth = Math.max(cost.filterDepth, (filters += 1));
    if (type === 'FunctionExpr') {
      const name = (node as { name?: unknown }).name;
      if (typeof name === 'string' && REGEX_FUNCTIONS.has(name)) cost.regexFunction = name;
    }
    for (const child of Object.values(node)) pending.push({ node: child, filters });
  }
  return cost;
}

interface PegError {
  found?: string | null;
  location?: { start?: { offset?: number } };
}

/** The parser's error in words: where the path stops being JSONPath, without its list of expected characters. */
function describeSyntaxError(error: unknown): string {
  const { found, location } = error as PegError;
  const at = location?.start?.offset;
  if (at === undefined) return error instanceof Error ? error.message : String(error);
  const what = found === null || found === undefined ? 'the path ends too early' : `unexpected ${JSON.stringify(found)}`;
  return `${what} at character ${at + 1}`;
}

/** Why a path cannot be used, or null: not RFC 9535 JSONPath, or too costly to run (JSON_PATH_LIMITS). */
export function jsonPathProblem(path: string): SelectorProblem | null {
  let parsed: unknown;
  try {
    parsed = parseJsonPath(path);
  } catch (error) {
    return { code: 'selector_invalid', message: `the path is not valid JSONPath (RFC 9535): ${describeSyntaxError(error)}` };
  }
  const cost = pathCost(parsed);
  if (cost.regexFunction !== null) {
    return {
      code: 'selector_too_costly',
      message: `${cost.regexFunction}() is not supported: its regular expression may run for very long`,
    };
  }
  const { descendantSegments, filterNesting } = JSON_PATH_LIMITS;
  if (cost.descendants > descendantSegments) {
    return { code: 'selector_too_costly', message: `the path has ${cost.descendants} ".." segments; at most ${descendantSegments}` };
  }
  if (cost.filterDepth > filterNesting) {
    return { code: 'selector_too_costly', message: `the path nests filters ${cost.filterDepth} deep; at most ${filterNesting}` };
  }
  return null;
}

export type JsonSelectResult = { ok: true; values: JsonValue[] } | ({ ok: false } & SelectorProblem);

export function selectJson(document: JsonValue, path: string): JsonSelectResult {
  const problem = jsonPathProblem(path);
  if (problem) return { ok: false, ...problem };
  return { ok: true, values: query(document, path) };
}
