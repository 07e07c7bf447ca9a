import type { AnyNode, Element, Text } from 'domhandler';

// Node guards on the parsed tree (domhandler's classes; htmlparser2 marks
// <script> and <style> with types of their own).

export function isElement(node: AnyNode): node is Element {
  return node.type === 'tag' || node.type === 'script' || node.type === 'style';
}

export function isTextNode(node: AnyNode): node is Text {
  return node.type === 'text';
}

/** Every element below the nodes, in document order. */
export function descendants(nodes: readonly AnyNode[]): Element[] {
  const out: Element[] = [];
  const stack = [...nodes].reverse();
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (!isElement(node)) continue;
    out.push(node);
    for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!);
  }
  return out;
}
