import { hasChildren, type ChildNode, type ParentNode } from 'domhandler';

// Elements nested deeper than browsers build them are lifted, in document
// order, to be children of the element at the limit, keeping their text — what Chromium's HTML
// parser does past 512 open elements. Every later walk of the page (text,
// selectors, the preview's outline) may then recurse: a page of 30,000
// nested elements would overflow the stack of any of them.

export const MAX_ELEMENT_DEPTH = 512;

function link(children: ChildNode[], parent: ParentNode): void {
  children.forEach((child, i) => {
    child.parent = parent;
    child.prev = children[i - 1] ?? null;
    child.next = children[i + 1] ?? null;
  });
  parent.children = children;
}

/** Lifts every element below `node` to be its direct child, in document order; each keeps its own text. */
function flattenBelow(node: ParentNode): void {
  const flat: ChildNode[] = [];
  const pending: ChildNode[] = [...node.children].reverse();
  for (let next = pending.pop(); next; next = pending.pop()) {
    flat.push(next);
    if (!hasChildren(next)) continue;
    const lifted = next.children.filter(hasChildren);
    link(
      next.children.filter((child) => !hasChildren(child)),
      next,
    );
    for (let i = lifted.length - 1; i >= 0; i--) pending.push(lifted[i]!);
  }
  link(flat, node);
}

/** Caps the tree under `root` at `maxDepth` levels of nesting (iteratively: the tree may be arbitrarily deep). */
export function capDepth(root: ParentNode, maxDepth = MAX_ELEMENT_DEPTH): void {
  const pending: { node: ParentNode; depth: number }[] = [{ node: root, depth: 0 }];
  for (let item = pending.pop(); item; item = pending.pop()) {
    const { node, depth } = item;
    if (depth >= maxDepth) {
      if (node.children.some(hasChildren)) flattenBelow(node);
      continue;
    }
    for (const child of node.children) if (hasChildren(child)) pending.push({ node: child, depth: depth + 1 });
  }
}
