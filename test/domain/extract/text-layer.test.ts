import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import type { Element } from 'domhandler';
import { loadRealPages } from '../../../scripts/realpages-eval.ts';
import { descendants } from '../../../src/domain/extract/dom.ts';
import { pageTextView } from '../../../src/domain/extract/page-text.ts';
import { CUTTABLE } from '../../../src/domain/extract/text-capture.ts';
import { StockText, stockWording } from '../../../src/domain/extract/stock-text.ts';
import { TextLayer } from '../../../src/domain/extract/text-layer.ts';
import { normaliseLines, visibleText, type VisibleTextOptions } from '../../../src/domain/extract/visible-text.ts';
import { page } from './helpers.ts';
import type { ParsedPage } from '../../../src/domain/extract/parse-page.ts';

// A page's text read once and sliced (page-text.ts, text-layer.ts) is the
// text visibleText reads of the same nodes with the same options, whatever
// the element: the slices are a speed-up, never a different reading.

// a view's skip is asked only of the elements CUTTABLE names (text-capture.ts)
const LEFT_OUT: VisibleTextOptions = {
  skipStruck: true,
  skip: (el) => el.name === 'tr' || (el.name === 'a' && el.attribs.class === 'cut'),
};

function assertSameAsVisibleText(parsed: ParsedPage, label: string): void {
  const elements = descendants(parsed.document.children);
  for (const [key, options] of [['plain', {}] as const, ['left out', LEFT_OUT] as const]) {
    const view = pageTextView(parsed, key, options);
    assert.equal(view.text, visibleText(parsed.document.children, options), `${label}: the page's text (${key})`);
    for (const el of elements) {
      const expected = visibleText([el], options);
      if (view.of(el) !== expected) assert.equal(view.of(el), expected, `${label}: <${el.name}> (${key})`);
    }
  }
}

/** Each place (every seventh character that is no whitespace), and how many of them lie in each element's span. */
function assertPlacesCounted(parsed: ParsedPage, label: string): void {
  for (const [key, options] of [['plain', {}] as const, ['left out', LEFT_OUT] as const]) {
    const view = pageTextView(parsed, key, options);
    const places: number[] = [];
    for (let at = 0; at < view.text.length; at += 7) if (/\S/u.test(view.text[at]!)) places.push(at);
    // before[t]: how many places lie before offset t
    const before = [0];
    for (let at = 0, n = 0; at < view.text.length; at++) before.push(places[n] === at ? ++n : n);
    const placesIn = view.placesIn(places);
    for (const el of descendants(parsed.document.children)) {
      const span = view.span(el);
      const expected = span === null ? null : before[span.to]! - before[span.from]!;
      if (placesIn(el) !== expected) assert.equal(placesIn(el), expected, `${label}: <${el.name}> (${key})`);
    }
  }
}

// parsed once for the tests below (~140 MB held), not once each; let go when the file ends, as its process runs others
let parsedRealPages: { key: string; parsed: ParsedPage }[] | undefined;
after(() => {
  parsedRealPages = undefined;
});
const realPages = () =>
  (parsedRealPages ??= loadRealPages(resolve(import.meta.dirname, '../../corpora/realpages')).map((real) => ({
    key: real.key,
    parsed: page(real.html.toString('utf8')),
  })));

test('slices of the one-pass text equal each element read on its own, on every real shop page', () => {
  for (const { key, parsed } of realPages()) assertSameAsVisibleText(parsed, key);
});

test('the places counted in each element’s text are those inside its slice, on every real shop page', () => {
  for (const { key, parsed } of realPages()) assertPlacesCounted(parsed, key);
});

test('a link or button with fewer than two places where phrases start in its text is not worded both ways, on every real shop page', () => {
  // what availability.ts relies on to read only those controls: each place holds one phrase at most (stock-text.ts)
  let read = 0;
  for (const { key, parsed } of realPages()) {
    const view = pageTextView(parsed, 'plain');
    const places = new StockText(view.text).places();
    if (places === null) continue;
    const placesIn = view.placesIn(places);
    for (const el of descendants(parsed.document.children)) {
      const count = placesIn(el);
      if ((el.name !== 'a' && el.name !== 'button') || count === null || count >= 2) continue;
      const wording = stockWording(view.of(el));
      read++;
      // out and in are strengths: what says anything counts once
      if (Number(wording.out > 0) + Number(wording.in > 0) > count)
        assert.fail(`${key}: <${el.name}> "${view.of(el)}" has ${count} places`);
    }
  }
  assert.ok(read > 1000, `${read} controls read`);
});

test('a place that is a separator, not a character of the page, is counted in no element', () => {
  const parsed = page('<div><p>one</p><p>two</p></div>');
  const view = pageTextView(parsed, 'plain');
  assert.equal(view.text, 'one\ntwo');
  const p = descendants(parsed.document.children).find((el) => el.name === 'p') as Element;
  assert.equal(view.placesIn([0])(p), 1);
  assert.equal(view.placesIn([0, 3])(p), null);
});

test('slices equal each element read on its own at the edges of left-out, hidden and inline elements', () => {
  const html = `<div> a <span><del>9</del> b</span><a class="cut">x</a>c<br>
    <p hidden>h <b>i</b></p><del><span>in del</span> <b>too</b></del>
    <table><tr><td>Shipping</td><td>4.95</td></tr></table><i></i><s></s> end\u00a0 <b> </b>\n\t<em>last</em> </div>`;
  assertSameAsVisibleText(page(html), 'edges');
  assertPlacesCounted(page(html), 'edges');
});

test('text that normalisation composes is read on its own, and still equals visibleText', () => {
  // "e" + combining acute split across elements; a mark no letter composes with; a decomposed page; Hangul jamo
  for (const html of [
    '<p>cafe<b>\u0301</b> x</p>',
    '<p>x<b>\u0301</b> y</p>',
    '<p>caf\u0065\u0301 <b>b</b></p>',
    '<p>\u1100<i>\u1161</i>\u11a8 <b>k</b></p>',
  ]) {
    assertSameAsVisibleText(page(html), JSON.stringify(html));
    assertPlacesCounted(page(html), JSON.stringify(html));
  }
});

const RAW_TEXTS = [
  '',
  ' ',
  '  ',
  ' a ',
  'a ',
  ' a',
  '\ta',
  'a\t',
  ' \n',
  'a\n\n b \u3000c\r\nd',
  '\n x \u2028 y\t\n',
  'é \u0065\u0301',
  ' ab  cd \n ef\tg ',
];

test('the layer of a raw text is its lines normalised', () => {
  for (const raw of RAW_TEXTS) {
    assert.equal(new TextLayer(raw).text, normaliseLines(raw), JSON.stringify(raw));
  }
});

test('every stretch of a raw text, edges inside words and runs of whitespace too, is sliced as it is normalised', () => {
  for (const raw of RAW_TEXTS) {
    const layer = new TextLayer(raw);
    for (let start = 0; start <= raw.length; start++) {
      for (let end = start; end <= raw.length; end++) {
        assert.equal(layer.slice(start, end), normaliseLines(raw.slice(start, end)), `${JSON.stringify(raw)} ${start}–${end}`);
      }
    }
  }
});

test('a character the layer copies lies in a stretch’s span exactly when its raw place lies in the stretch', () => {
  // (a raw text NFC changes is normalised whole: no stretch of it is sliced, nothing maps back)
  for (const raw of RAW_TEXTS.filter((text) => text.normalize('NFC') === text)) {
    const layer = new TextLayer(raw);
    const copied: { at: number; rawAt: number }[] = [];
    for (let at = 0; at < layer.text.length; at++) {
      const rawAt = layer.toRaw(at);
      // a separator (a collapsed run) is copied from nowhere; every other character from a place holding it
      if (rawAt === null) assert.match(layer.text[at]!, /\s/u, `${JSON.stringify(raw)} ${at}`);
      else assert.equal(raw[rawAt], layer.text[at], `${JSON.stringify(raw)} ${at}`);
      if (rawAt !== null) copied.push({ at, rawAt });
    }
    for (let start = 0; start <= raw.length; start++) {
      for (let end = start; end <= raw.length; end++) {
        const span = layer.span(start, end);
        if (span === null) continue;
        for (const { at, rawAt } of copied) {
          if (/\s/u.test(layer.text[at]!)) continue;
          const inSpan: boolean = span.from <= at && at < span.to;
          assert.equal(start <= rawAt && rawAt < end, inSpan, `${JSON.stringify(raw)} ${start}–${end} at ${at}`);
        }
      }
    }
  }
});

test('a raw text normalised whole has no places to map back to', () => {
  const layer = new TextLayer('cafe\u0301 au lait');
  assert.equal(layer.text, 'café au lait');
  assert.equal(layer.toRaw(0), null);
});

test('no character below U+0300 composes with the one before it (the layer looks no further for those)', () => {
  for (let c = 0; c < 0x300; c++) {
    const pair = `a${String.fromCharCode(c)}`;
    if (pair.normalize('NFC') !== pair || /\p{M}/u.test(pair)) assert.fail(`U+${c.toString(16)}`);
  }
});

test('an element inside a left-out one is read on its own, as visibleText reads it', () => {
  const parsed = page('<div><del><p>old <b>12</b></p></del><p>new</p></div>');
  const inner = descendants(parsed.document.children).find((el) => el.name === 'p') as Element;
  assert.equal(pageTextView(parsed, 'struck', { skipStruck: true }).of(inner), 'old 12');
});

test('a view asks its skip only of the elements CUTTABLE names, on the page and on an element read on its own', () => {
  assert.deepEqual([...CUTTABLE].sort(), ['a', 'button', 'del', 's', 'strike', 'tr']);
  const parsed = page(
    '<div><p hidden><b><span class="cut">kept</span> <a class="cut">cut</a></b></p><span class="cut">kept</span> <a class="cut">cut</a> end</div>',
  );
  const view = pageTextView(parsed, 'class cut', { skip: (el) => el.attribs.class === 'cut' });
  assert.equal(view.text, 'kept end');
  // inside a hidden element: not read by the page's walk
  const unread = descendants(parsed.document.children).find((el) => el.name === 'b') as Element;
  assert.equal(view.of(unread), 'kept');
});
