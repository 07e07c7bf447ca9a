import { isElement, isTextNode } from './dom.ts';
import type { AnyNode, Element } from 'domhandler';
import { normaliseText } from '../observed-value.ts';

// The text a reader sees: no script/style/template/noscript/head contents, no
// elements hidden by the `hidden` attribute or an inline display:none, block
// elements on lines of their own, table cells and buttons apart by a space.

const SKIPPED = new Set([
  'script',
  'style',
  'template',
  'noscript',
  'head',
  'title',
  'iframe',
  'object',
  'embed',
  'canvas',
  'svg',
  'datalist',
]);
export const STRUCK: ReadonlySet<string> = new Set(['del', 's', 'strike']);
const BLOCKS = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'body',
  'caption',
  'dd',
  'details',
  'dialog',
  'div',
  'dl',
  'dt',
  'fieldset',
  'figcaption',
  'figure',
  'footer',
  'form',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hgroup',
  'hr',
  'html',
  'legend',
  'li',
  'main',
  'nav',
  'ol',
  'option',
  'p',
  'pre',
  'section',
  'summary',
  'table',
  'tbody',
  'tfoot',
  'thead',
  'tr',
  'ul',
]);
const SPACED = new Set(['td', 'th', 'button', 'label', 'input', 'select', 'textarea', 'img']);

export interface VisibleTextOptions {
  /** leave out struck-through text (<del>, <s>): an old price is not the price */
  skipStruck?: boolean;
  /** leave out the elements this says to (with their contents) */
  skip?: (el: Element) => boolean;
}

// "display:none" or "visibility:hidden" as a declaration of an inline style,
// whatever the case and the whitespace, even inside a word ("dis play"): what
// the style lowercased and without whitespace shows, read without copying it.
// Without the u flag, i folds ASCII letters only, as lowercasing does for these.
const HIDING_STYLE = new RegExp(
  ['display:none', 'visibility:hidden'].map((words) => `(?:^|;)\\s*${[...words].join('\\s*')}`).join('|'),
  'i',
);

/** Whether attributes hide their element: a `hidden` attribute, or an inline style saying so. */
export function hiddenBy(hidden: boolean, style: string | undefined): boolean {
  return hidden || (style !== undefined && HIDING_STYLE.test(style));
}

export function isHidden(el: Element): boolean {
  return hiddenBy(el.attribs.hidden !== undefined, el.attribs.style);
}

/** What a walk writes: the raw text's pieces, and where each element's raw text starts and ends when asked. */
export interface RawText {
  parts: string[];
  length: number;
  /** called for every element read, with the offsets of its raw text (separators included; end exclusive) */
  onElement?: (el: Element, start: number, end: number) => void;
}

function push(out: RawText, piece: string): void {
  out.parts.push(piece);
  out.length += piece.length;
}

/** Whether a reader sees nothing of the element: a kind never shown, or hidden. */
export function isUnread(el: Element): boolean {
  return isUnreadTag(el.name, isHidden(el));
}

/** isUnread of an element named `name` whose attributes hide it or not (hiddenBy). */
export function isUnreadTag(name: string, hidden: boolean): boolean {
  return hidden || SKIPPED.has(name);
}

// one lookup per element, not one per set: the parser notes every element's separator (text-capture.ts)
const SEPARATORS: ReadonlyMap<string, string> = new Map([
  ...[...SPACED].map((name) => [name, ' '] as const),
  ...[...BLOCKS].map((name) => [name, '\n'] as const),
]);

/** What stands before and after an element's text: a line break (blocks), a space (cells, controls) or nothing. */
export function separatorOf(name: string): string {
  return SEPARATORS.get(name) ?? '';
}

/** What normalising makes of a whitespace run between two words: a line break if the run holds one, else a space. */
export function runSeparator(run: string): string {
  return run.includes('\n') ? '\n' : ' ';
}

const ASCII_WHITESPACE = /^[\t-\r ]+$/;

/**
 * A text node's data as the raw text holds it: whitespace alone (a page's
 * indentation between tags, on some pages most of the raw text) as the
 * one character normalising turns a run holding it into — a line break if it
 * holds one, else a space — and any other data as it is. Normalised, any
 * stretch of the raw text made of whole pieces reads the same either way; the
 * raw text is shorter, and a page's raw text long enough to be a large object
 * is fresh memory each time, whose first touch is dear on some virtual
 * machines (decision record 0087). Most data starts with no whitespace: one
 * character looked at.
 */
export function rawPiece(data: string): string {
  const first = data.charCodeAt(0);
  if (data.length < 2 || !(first === 32 || (first >= 9 && first <= 13)) || !ASCII_WHITESPACE.test(data)) return data;
  return runSeparator(data);
}

function collect(node: AnyNode, out: RawText, options: VisibleTextOptions): void {
  if (isTextNode(node)) {
    push(out, rawPiece(node.data));
    return;
  }
  if (!isElement(node)) return;
  const name = node.name;
  if (isUnread(node) || (options.skipStruck && STRUCK.has(name)) || options.skip?.(node)) return;
  const start = out.length;
  if (name === 'br') {
    push(out, '\n');
  } else {
    const separator = separatorOf(name);
    // most elements are inline: nothing to push around them
    if (separator !== '') push(out, separator);
    for (const child of node.children) collect(child, out, options);
    if (separator !== '') push(out, separator);
  }
  out.onElement?.(node, start, out.length);
}

/** The nodes' visible text before lines are normalised (whitespace alone as rawPiece holds it): what visibleText reads. */
export function rawVisibleText(nodes: readonly AnyNode[], out: RawText, options: VisibleTextOptions = {}): string {
  for (const node of nodes) collect(node, out, options);
  return out.parts.join('');
}

/** Raw visible text as visibleText shows it: one line per block, whitespace collapsed within lines, no empty lines. */
export function normaliseLines(raw: string): string {
  return raw
    .split('\n')
    .map(normaliseText)
    .filter((line) => line !== '')
    .join('\n');
}

/** Visible text of the nodes: one line per block, whitespace collapsed within lines, no empty lines. */
export function visibleText(nodes: readonly AnyNode[], options: VisibleTextOptions = {}): string {
  return normaliseLines(rawVisibleText(nodes, { parts: [], length: 0 }, options));
}

/** Whether the nodes show any visible text: visibleText(nodes) !== '', stopping at the first word. */
export function showsText(nodes: readonly AnyNode[]): boolean {
  return nodes.some((node) => {
    if (isTextNode(node)) return /\S/u.test(node.data);
    if (!isElement(node) || SKIPPED.has(node.name) || isHidden(node)) return false;
    return showsText(node.children);
  });
}
