import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Element } from 'domhandler';
import { parsePage } from '../../../src/domain/extract/parse-page.ts';
import { normaliseLines, rawPiece, rawVisibleText } from '../../../src/domain/extract/visible-text.ts';
import { BlockList } from '../../../src/domain/extract/block-list.ts';
import { CUTTABLE } from '../../../src/domain/extract/text-capture.ts';
import { extractFromDocument, outlineDocument, readsPageText, readTextDocument } from '../../../src/domain/extract/document.ts';
import type { Target } from '../../../src/domain/targets.ts';

// The visible text noted while parsing must be what a walk of the finished tree reads.
function walked(html: string) {
  const page = parsePage(html, 'https://shop.example/');
  const elements = new BlockList<Element>();
  const starts = new BlockList<number>();
  const ends = new BlockList<number>();
  const cuttable: number[] = [];
  const raw = rawVisibleText(page.document.children, {
    parts: [],
    length: 0,
    onElement: (el, start, end) => {
      if (CUTTABLE.has(el.name)) cuttable.push(elements.length);
      elements.push(el);
      starts.push(start);
      ends.push(end);
    },
  });
  return { page, walk: { raw, elements, starts, ends, cuttable } };
}

const PAGES = [
  '<p>a<br>b<br hidden>c</p><div style="display : NONE">gone</div><table><tr><td>1<td>2</table>',
  '<ul><li>one<li>two</ul><p>x<p>y<button>Add <b>now</b></button><input value="v">',
  '<b>bold <i>both</b> italic</i> after',
  '<div>never closed <span>nor this',
  '<head><title>T</title><script>var x = "<p>";</script><style>p{}</style></head><body><!-- c --><noscript>n</noscript>z</body>',
  '<svg><text>drawn</text></svg><template><p>t</p></template><s>old</s> <del>older</del><p hidden><b>hidden child</b></p>text',
  // the first of two style attributes counts; an implied <br> and a second <form>'s attributes hide nothing
  '<div style="color: red" style="display:none">first style</div><p hidden>h</br>after</p><form><form hidden><i>in</i></form>',
  // whitespace the parser hands over in pieces (around an entity) or apart (around a comment)
  '<ul>\n  <li>  &amp;  </li>\n  &nbsp;\n  <!-- c -->\n   <li>x &lt; y</li>\n</ul>',
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

// Targets that read selected elements alone parse without noting the text; whole-page ones walk the tree instead.
const PRODUCT = `<html><head><title>Kettle</title></head><body><nav><a href="/a">Home</a> <a href="/b">Deals</a></nav>
  <main><div class="offer"><h1>Steel kettle</h1><p class="price"><s>€39.99</s> <b>€29.99</b></p>
  <table><tr><td>Shipping</td><td>€4.95</td></tr></table><p class="stock">In stock</p>
  <button>Add to cart<span hidden>Sold out</span></button></div><p>Other: €12.00</p></main></body></html>`;

const SCOPES: Target['selection'][] = [
  { scope: 'page' },
  { scope: 'selector', selector: '.price' },
  { scope: 'xpath', expression: '//p[@class="stock"]' },
];
const TARGETS: Target[] = SCOPES.flatMap((selection) => [
  { id: 't', kind: 'text', selection },
  { id: 'p', kind: 'price', selection, currency: 'EUR' },
  { id: 'a', kind: 'availability', selection },
  { id: 'l', kind: 'links', selection },
]);

test('a page parsed without noting its text has none noted, and every target reads the same from it', () => {
  for (const html of [PRODUCT, ...PAGES]) {
    const withText = readTextDocument(html, 'https://shop.example/');
    const without = readTextDocument(html, 'https://shop.example/', { captureText: false });
    assert.ok(withText.format === 'html' && without.format === 'html');
    assert.notEqual(withText.page.parsedText, null);
    assert.equal(without.page.parsedText, null);
    for (const target of TARGETS) {
      assert.deepEqual(
        extractFromDocument(without, target),
        extractFromDocument(withText, target),
        `${target.kind} ${target.selection.scope} ${html}`,
      );
    }
    assert.deepEqual(outlineDocument(without), outlineDocument(withText), html);
  }
});

test('the text is noted while parsing only for targets that read the whole page', () => {
  const [page, ...selected] = TARGETS.filter((t) => t.kind === 'text');
  assert.equal(readsPageText(selected), false);
  assert.equal(readsPageText([...selected, page!]), true);
  assert.equal(readsPageText([]), false);
});

// Pieces of a raw text: words, words with whitespace about them, and whitespace alone of every kind normalising tells
// apart (a run with a line break, a run without, a single space, whitespace beyond ASCII).
const PIECES = ['Kettle', ' ', '  ', '\n', ' \n\t ', '\t', '\r', '\u00a0 ', ' in stock\n '];

test('whitespace alone is noted as the one character normalising makes of it: every stretch of whole pieces reads the same', () => {
  const sequences = (length: number): string[][] =>
    length === 0 ? [[]] : sequences(length - 1).flatMap((rest) => PIECES.map((piece) => [piece, ...rest]));
  for (const pieces of sequences(4)) {
    const noted = pieces.map(rawPiece);
    for (let from = 0; from <= pieces.length; from++) {
      for (let to = from; to <= pieces.length; to++) {
        const expected = normaliseLines(pieces.slice(from, to).join(''));
        assert.equal(normaliseLines(noted.slice(from, to).join('')), expected, JSON.stringify(pieces.slice(from, to)));
      }
    }
  }
});

test('whitespace alone is noted shorter, any other text as it is', () => {
  assert.equal(rawPiece('\n      '), '\n');
  assert.equal(rawPiece(' \t  '), ' ');
  assert.equal(rawPiece(' '), ' ');
  assert.equal(rawPiece('  in stock  '), '  in stock  ');
  assert.equal(rawPiece('\u00a0\u00a0'), '\u00a0\u00a0');
  const indented = parsePage('<ul>\n        <li>one</li>\n        <li>two</li>\n      </ul>', 'https://shop.example/');
  assert.equal(indented.parsedText!.raw, '\n\n\none\n\n\ntwo\n\n\n');
});
