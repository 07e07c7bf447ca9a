import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Element } from 'domhandler';
import { parsePage } from '../../../src/domain/extract/parse-page.ts';
import { rawVisibleText } from '../../../src/domain/extract/visible-text.ts';

// The visible text noted while parsing must be what a walk of the finished tree reads.
function walked(html: string) {
  const page = parsePage(html, 'https://shop.example/');
  const elements: Element[] = [];
  const starts: number[] = [];
  const ends: number[] = [];
  const raw = rawVisibleText(page.document.children, {
    parts: [],
    length: 0,
    onElement: (el, start, end) => {
      elements.push(el);
      starts.push(start);
      ends.push(end);
    },
  });
  return { page, walk: { raw, elements, starts, ends } };
}

const PAGES = [
  '<p>a<br>b<br hidden>c</p><div style="display : NONE">gone</div><table><tr><td>1<td>2</table>',
  '<ul><li>one<li>two</ul><p>x<p>y<button>Add <b>now</b></button><input value="v">',
  '<b>bold <i>both</b> italic</i> after',
  '<div>never closed <span>nor this',
  '<head><title>T</title><script>var x = "<p>";</script><style>p{}</style></head><body><!-- c --><noscript>n</noscript>z</body>',
  '<svg><text>drawn</text></svg><template><p>t</p></template><s>old</s> <del>older</del><p hidden><b>hidden child</b></p>text',
];

test('the visible text noted while parsing equals a walk of the parsed tree, with the same element offsets', () => {
  for (const html of PAGES) {
    const { page, walk } = walked(html);
    assert.deepEqual(page.parsedText, walk, html);
  }
});

test('a page nested deeper than the depth cap has no text noted while parsing: the lifted elements read in another order', () => {
  const deep = `${'<div>'.repeat(600)}x`;
  assert.equal(parsePage(deep, 'https://shop.example/').parsedText, null);
  assert.notEqual(parsePage('<div><p>x</p></div>', 'https://shop.example/').parsedText, null);
});
