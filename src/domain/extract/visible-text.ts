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
const STRUCK = new Set(['del', 's', 'strike']);
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

export function isHidden(el: Element): boolean {
  if (el.attribs.hidden !== undefined) return true;
  const style = (el.attribs.style ?? '').toLowerCase().replace(/\s+/gu, '');
  return /(?:^|;)(?:display:none|visibility:hidden)/u.test(style);
}

function collect(node: AnyNode, out: string[], options: VisibleTextOptions): void {
  if (isTextNode(node)) {
    out.push(node.data);
    return;
  }
  if (!isElement(node)) return;
  const name = node.name;
  if (SKIPPED.has(name) || isHidden(node) || (options.skipStruck && STRUCK.has(name)) || options.skip?.(node)) return;
  if (name === 'br') {
    out.push('\n');
    return;
  }
  const separator = BLOCKS.has(name) ? '\n' : SPACED.has(name) ? ' ' : '';
  out.push(separator);
  for (const child of node.children) collect(child, out, options);
  out.push(separator);
}

/** Visible text of the nodes: one line per block, whitespace collapsed within lines, no empty lines. */
export function visibleText(nodes: readonly AnyNode[], options: VisibleTextOptions = {}): string {
  const out: string[] = [];
  for (const node of nodes) collect(node, out, options);
  return out
    .join('')
    .split('\n')
    .map(normaliseText)
    .filter((line) => line !== '')
    .join('\n');
}

/** Whether the nodes show any visible text: visibleText(nodes) !== '', stopping at the first word. */
export function showsText(nodes: readonly AnyNode[]): boolean {
  return nodes.some((node) => {
    if (isTextNode(node)) return /\S/u.test(node.data);
    if (!isElement(node) || SKIPPED.has(node.name) || isHidden(node)) return false;
    return showsText(node.children);
  });
}
