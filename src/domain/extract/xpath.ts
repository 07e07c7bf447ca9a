import { DOMImplementation } from '@xmldom/xmldom';
import { Text, type AnyNode, type Document as HtmlDocument } from 'domhandler';
import xpath from 'xpath';
import { isElement, isTextNode } from './dom.ts';
import type { ParsedPage } from './parse-page.ts';
import { perPage } from './per-page.ts';
import type { SelectorProblem } from './select.ts';

// XPath 1.0 as a selection's expression, by the `xpath` library over a W3C DOM
// (@xmldom/xmldom) built once per page from the parsed HTML; what it selects
// is mapped back to the parsed page's nodes, which every kind reads as it
// reads a CSS selector's elements. An attribute selected (//meta/@content) is
// read as a text of its value. The function set is XPath 1.0's core library
// only: no variables, no extension functions, and XPath 1.0 has no document(),
// so nothing reads outside the page. Cost limits mirror the CSS selectors':
// steps that scan the tree (//, descendant, following, preceding and their
// sibling axes) multiply each other's work on deep pages.

export const XPATH_LIMITS = {
  /** steps on a scanning axis (// included), in the whole expression */
  scanningSteps: 3,
  /** alternatives joined by "|" */
  alternatives: 5,
  /** predicates inside predicates */
  predicateNesting: 2,
} as const;

const CORE_FUNCTIONS = new Set([
  ...['last', 'position', 'count', 'id', 'local-name', 'namespace-uri', 'name'],
  ...['string', 'concat', 'starts-with', 'contains', 'substring-before', 'substring-after', 'substring', 'string-length'],
  ...['normalize-space', 'translate', 'boolean', 'not', 'true', 'false', 'lang', 'number', 'sum', 'floor', 'ceiling', 'round'],
]);

// The library's axis numbers (xpath.Step): descendant, descendant-or-self, following, following-sibling, preceding, preceding-sibling.
const SCANNING_AXES = new Set([4, 5, 6, 7, 10, 11]);

interface ExpressionCost {
  scanning: number;
  alternatives: number;
  nesting: number;
  unknownFunction: string | null;
  variable: boolean;
}

/** Walks the library's parsed expression (plain objects named by their constructors) with an explicit stack. */
function expressionCost(root: object): ExpressionCost {
  const cost: ExpressionCost = { scanning: 0, alternatives: 1, nesting: 0, unknownFunction: null, variable: false };
  const seen = new Set<object>();
  const pending: { node: unknown; depth: number }[] = [{ node: root, depth: 0 }];
  for (let item = pending.pop(); item; item = pending.pop()) {
    const { node, depth } = item;
    if (node === null || typeof node !== 'object' || seen.has(node)) continue;
    seen.add(node);
    const record = node as Record<string, unknown>;
    switch (node.constructor.name) {
      case 'Step':
        if (SCANNING_AXES.has(record.axis as number)) cost.scanning += 1;
        break;
      case 'BarOperation':
        cost.alternatives += 1;
        break;
      case 'FunctionCall': {
        const name = String(record.functionName);
        if (!CORE_FUNCTIONS.has(name)) cost.unknownFunction = name;
        break;
      }
      case 'VariableReference':
        cost.variable = true;
        break;
    }
    if (!Array.isArray(node)) cost.nesting = Math.max(cost.nesting, depth);
    for (const [key, child] of Object.entries(record)) {
      // the nodes of a predicate are one level deeper (a list of predicates is no node: an empty one nests nothing)
      const inPredicate = key === 'predicates' || key === 'filterPredicates';
      pending.push({ node: child, depth: inPredicate ? depth + 1 : depth });
    }
  }
  return cost;
}

function parsed(expression: string): object | SelectorProblem {
  try {
    return (xpath as unknown as { parse(text: string): { expression: object } }).parse(expression).expression;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const why = message === 'XPath parse error' ? 'its grammar does not allow it (check brackets, quotes and axis names)' : message;
    return { code: 'selector_invalid', message: `the expression is not valid XPath 1.0: ${why}` };
  }
}

/** Why an expression cannot be used, or null: not XPath 1.0, outside the safe function set, or too costly (XPATH_LIMITS). */
export function xpathProblem(expression: string): SelectorProblem | null {
  const tree = parsed(expression);
  if ('code' in tree) return tree;
  const cost = expressionCost(tree);
  if (cost.variable) return { code: 'selector_invalid', message: 'the expression uses a variable ($…); there are none' };
  if (cost.unknownFunction !== null) {
    return { code: 'selector_invalid', message: `${cost.unknownFunction}() is not an XPath 1.0 core function; only those are available` };
  }
  const { scanningSteps, alternatives, predicateNesting } = XPATH_LIMITS;
  if (cost.alternatives > alternatives) {
    return {
      code: 'selector_too_costly',
      message: `the expression has ${cost.alternatives} alternatives joined by "|"; at most ${alternatives}`,
    };
  }
  if (cost.nesting > predicateNesting) {
    return { code: 'selector_too_costly', message: `the expression nests predicates ${cost.nesting} deep; at most ${predicateNesting}` };
  }
  if (cost.scanning > scanningSteps) {
    return {
      code: 'selector_too_costly',
      message:
        `the expression has ${cost.scanning} steps that scan the page ("//", descendant, following, preceding and their sibling axes); ` +
        `at most ${scanningSteps} (use "/" for children)`,
    };
  }
  return null;
}

interface XmlView {
  document: globalThis.Node;
  /** the parsed page's node of each W3C node */
  source: Map<globalThis.Node, AnyNode>;
}

/**
 * A W3C DOM of the parsed page (elements, their attributes and texts), built iteratively, with the way back. A
 * document has one root element: a page of several top-level elements (a fragment) gets an <html> around them, as a
 * browser would give it.
 */
function xmlView(html: HtmlDocument): XmlView {
  const xml = new DOMImplementation().createDocument(null, '', null);
  const source = new Map<globalThis.Node, AnyNode>();
  const topElements = html.children.filter(isElement);
  let top: AnyNode[] = topElements;
  let root = xml as unknown as globalThis.Node;
  if (topElements.length !== 1) {
    root = root.appendChild(xml.createElement('html') as unknown as globalThis.Node);
    top = html.children;
  }
  const pending: { node: AnyNode; parent: globalThis.Node }[] = top.map((node) => ({ node, parent: root }));
  for (let item = pending.shift(); item; item = pending.shift()) {
    const { node, parent } = item;
    let made: globalThis.Node | null = null;
    if (isElement(node)) {
      const element = xml.createElement(node.name);
      for (const [name, value] of Object.entries(node.attribs)) element.setAttribute(name, value);
      made = element as unknown as globalThis.Node;
      for (const child of node.children) pending.push({ node: child, parent: made });
    } else if (isTextNode(node)) made = xml.createTextNode(node.data) as unknown as globalThis.Node;
    if (made === null) continue;
    parent.appendChild(made);
    source.set(made, node);
  }
  return { document: xml as unknown as globalThis.Node, source };
}

export type XPathResult = { ok: true; elements: AnyNode[] } | ({ ok: false } & SelectorProblem);

export function selectXPath(page: ParsedPage, expression: string): XPathResult {
  const problem = xpathProblem(expression);
  if (problem) return { ok: false, ...problem };
  const view = perPage(page, 'xpath view', () => xmlView(page.document));
  const result = xpath.select(expression, view.document);
  if (!Array.isArray(result)) {
    return {
      ok: false,
      code: 'selector_invalid',
      message: 'the expression computes a value; it must select elements, texts or attributes',
    };
  }
  const nodes: AnyNode[] = [];
  for (const node of result) {
    if (xpath.isAttribute(node)) nodes.push(new Text(node.value));
    else {
      const found = view.source.get(node);
      if (found) nodes.push(found);
    }
  }
  return { ok: true, elements: nodes };
}
