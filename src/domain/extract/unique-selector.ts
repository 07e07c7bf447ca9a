import { is, selectAll } from 'css-select';
import type { AnyNode, Document, Element } from 'domhandler';
import { descendants, isElement } from './dom.ts';

// Stable CSS selectors that match exactly one element of a page. Preference,
// from what survives page updates best to what survives them worst:
//   #id  →  [data-testid="…"] (and other test-id attributes)  →  [itemprop="…"]
//   →  tag.class / tag.class.class  →  a :nth-of-type path down from the
//   nearest ancestor that has one of the above (else from <body>).
// Uniqueness comes from counting, over the whole page, the elements each
// simple selector would match; a candidate is confirmed against the element.

const TEST_ID_ATTRIBUTES = ['data-testid', 'data-test-id', 'data-test', 'data-qa', 'data-cy'];

/** CSS.escape for identifiers (CSSOM §2.1). */
export function cssIdent(value: string): string {
  let out = '';
  for (let i = 0; i < value.length; i++) {
    const ch = value[i]!;
    const code = value.charCodeAt(i);
    if (code === 0) out += '\ufffd';
    else if (
      (code >= 1 && code <= 0x1f) ||
      code === 0x7f ||
      (i === 0 && /\d/u.test(ch)) ||
      (i === 1 && /\d/u.test(ch) && value[0] === '-')
    ) {
      out += `\\${code.toString(16)} `;
    } else if (i === 0 && ch === '-' && value.length === 1) out += '\\-';
    else if (code >= 0x80 || /[-_0-9A-Za-z]/u.test(ch)) out += ch;
    else out += `\\${ch}`;
  }
  return out;
}

function cssString(value: string): string {
  return `"${value.replace(/["\\]/gu, '\\$&').replace(/\n/gu, '\\a ')}"`;
}

/**
 * Counts of what simple selectors would match, built once per page. An
 * element's classes are split once, and its own selector and each class
 * pair's count are worked out once: listing a page climbs the same ancestors
 * for every element listed.
 */
export class SelectorIndex {
  private readonly counts = new Map<string, number>();
  private readonly byClass = new Map<string, Element[]>();
  private readonly classLists = new Map<Element, string[]>();
  private readonly pairCounts = new Map<string, number>();
  private readonly ownSelectors = new Map<Element, string | null>();

  constructor(readonly document: Document) {
    for (const el of descendants(document.children)) {
      const own = splitClasses(el);
      this.classLists.set(el, own);
      for (const key of this.keysOf(el, own)) this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
      for (const cls of own) {
        const list = this.byClass.get(cls);
        if (list) list.push(el);
        else this.byClass.set(cls, [el]);
      }
    }
  }

  private keysOf(el: Element, own: readonly string[]): string[] {
    const keys: string[] = [];
    if (el.name === 'body') keys.push('body');
    if (el.attribs.id) keys.push(`#${el.attribs.id}`);
    for (const name of [...TEST_ID_ATTRIBUTES, 'itemprop']) {
      if (el.attribs[name]) keys.push(`[${name}=${el.attribs[name]}]`, `${el.name}[${name}=${el.attribs[name]}]`);
    }
    for (const cls of own) keys.push(`${el.name}.${cls}`);
    return keys;
  }

  /** The element's distinct classes, in the order it names them. */
  classesOf(el: Element): string[] {
    return this.classLists.get(el) ?? splitClasses(el);
  }

  isUnique(key: string): boolean {
    return this.counts.get(key) === 1;
  }

  /** How many elements with this tag carry both classes. */
  pairCount(tag: string, a: string, b: string): number {
    const key = `${tag}.${a}.${b}`;
    let count = this.pairCounts.get(key);
    if (count === undefined) {
      count = (this.byClass.get(a) ?? []).filter((el) => el.name === tag && this.classesOf(el).includes(b)).length;
      this.pairCounts.set(key, count);
    }
    return count;
  }

  /** ownSelector(el, this), worked out once per element. */
  ownSelector(el: Element): string | null {
    let own = this.ownSelectors.get(el);
    if (own === undefined) {
      own = ownSelector(el, this);
      this.ownSelectors.set(el, own);
    }
    return own;
  }
}

function splitClasses(el: Element): string[] {
  return [...new Set((el.attribs.class ?? '').split(/\s+/u).filter((c) => c !== ''))];
}

/** The best selector made of the element alone, or null when none is unique. */
function ownSelector(el: Element, index: SelectorIndex): string | null {
  const id = el.attribs.id;
  if (id && index.isUnique(`#${id}`)) return `#${cssIdent(id)}`;
  for (const name of [...TEST_ID_ATTRIBUTES, 'itemprop']) {
    const value = el.attribs[name];
    if (!value) continue;
    if (index.isUnique(`[${name}=${value}]`)) return `[${name}=${cssString(value)}]`;
    if (index.isUnique(`${el.name}[${name}=${value}]`)) return `${el.name}[${name}=${cssString(value)}]`;
  }
  const own = index.classesOf(el);
  const single = own.find((cls) => index.isUnique(`${el.name}.${cls}`));
  if (single) return `${el.name}.${cssIdent(single)}`;
  for (const [i, first] of own.entries()) {
    for (const second of own.slice(i + 1)) {
      if (index.pairCount(el.name, first, second) === 1) return `${el.name}.${cssIdent(first)}.${cssIdent(second)}`;
    }
  }
  return null;
}

function nthOfType(el: Element): string {
  const siblings = (el.parent?.children ?? []).filter((n): n is Element => isElement(n) && n.name === el.name);
  return siblings.length > 1 ? `${el.name}:nth-of-type(${siblings.indexOf(el) + 1})` : el.name;
}

interface Path {
  /** the selector the path starts from, and the element it must match alone; null for a path from the top */
  anchor: { selector: string; el: Element } | null;
  selector: string;
}

/**
 * A child-combinator path of tag:nth-of-type steps from the nearest ancestor
 * with a unique selector of its own (or <body>) down to the element; with
 * `anchored` false, from the top of the document.
 */
function positionalPath(el: Element, index: SelectorIndex, anchored: boolean): Path {
  const steps: string[] = [];
  for (let node: Element | null = el; node; node = node.parent && isElement(node.parent) ? node.parent : null) {
    const own = anchored && node !== el ? index.ownSelector(node) : null;
    if (own) return { anchor: { selector: own, el: node }, selector: [own, ...steps].join(' > ') };
    steps.unshift(nthOfType(node));
    if (anchored && node.name === 'body') return { anchor: { selector: 'body', el: node }, selector: steps.join(' > ') };
  }
  return { anchor: null, selector: steps.join(' > ') };
}

function matchesOnly(selector: string, el: Element, document: AnyNode): boolean {
  try {
    const found = selectAll<AnyNode, Element>(selector, document);
    return found.length === 1 && found[0] === el;
  } catch {
    return false;
  }
}

/**
 * A selector built from one of the index's keys is confirmed by checking that
 * it matches the element: the index already counted that no other element
 * has that key. (Querying the whole page per selector, and above all running
 * :nth-of-type through css-select, costs too much on long product lists.)
 */
function confirmedOwn(selector: string, el: Element): boolean {
  try {
    return is<AnyNode, Element>(el, selector);
  } catch {
    return false;
  }
}

/** Below a unique anchor, child steps by tag and position reach one element only. */
function pathMatchesOnly(path: Path, el: Element, index: SelectorIndex): boolean {
  if (!path.anchor) return matchesOnly(path.selector, el, index.document);
  return path.anchor.selector === 'body' ? index.isUnique('body') : confirmedOwn(path.anchor.selector, path.anchor.el);
}

/**
 * A selector that matches `el` and nothing else in the page; null in the rare
 * fragment page (no <html>/<body>) where even a positional path is ambiguous.
 */
export function uniqueSelector(el: Element, index: SelectorIndex): string | null {
  const own = index.ownSelector(el);
  if (own !== null && confirmedOwn(own, el)) return own;
  for (const path of [positionalPath(el, index, true), positionalPath(el, index, false)]) {
    if (pathMatchesOnly(path, el, index)) return path.selector;
  }
  return null;
}
