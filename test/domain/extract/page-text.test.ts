import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pageTitle } from '../../../src/domain/extract/parse-page.ts';
import { extractTarget } from '../../../src/domain/extract/extract-target.ts';
import { MAX_STRING_CHARS } from '../../../src/domain/extract/target-extraction.ts';
import { containsPhrase } from '../../../src/domain/extract/phrase.ts';
import { page, selector } from './helpers.ts';
import type { Target } from '../../../src/domain/targets.ts';

const textTarget = (fields: Partial<Target> = {}): Target => ({ id: 't', kind: 'text', selection: { scope: 'page' }, ...fields });

test('visible text leaves out scripts, styles, templates, noscript and the head', () => {
  const html = `<html><head><title>Kettle</title><style>p{}</style></head><body>
    <script>var x = "hidden";</script><template><p>tpl</p></template><noscript>enable js</noscript><p>Shown</p></body></html>`;
  assert.equal(extractTarget(page(html), textTarget()).value, 'Shown');
});

test('the title is kept apart from the visible text', () => {
  const parsed = page('<html><head><title>  Steel   kettle </title></head><body>x</body></html>');
  assert.equal(pageTitle(parsed), 'Steel kettle');
  assert.equal(pageTitle(page('<p>no title</p>')), null);
});

test('block elements are separate lines of the captured text, inline elements run on', () => {
  const result = extractTarget(page('<div>One <b>bold</b></div><p>Two</p><ul><li>a</li><li>b</li></ul>'), textTarget());
  assert.equal(result.text, 'One bold\nTwo\na\nb');
  assert.equal(result.value, 'One bold Two a b');
});

test('whitespace is collapsed', () => {
  assert.equal(extractTarget(page('<p>  a \n\t b\u00a0 c </p>'), textTarget()).value, 'a b c');
});

test('elements hidden by the hidden attribute or an inline display:none are not visible text', () => {
  const html = '<p>in</p><p hidden>gone</p><p style="display: none">also gone</p>';
  assert.equal(extractTarget(page(html), textTarget()).value, 'in');
});

test('a text value is capped at 1,500 characters, the captured text is not', () => {
  const long = 'x'.repeat(2000);
  const result = extractTarget(page(`<p>${long}</p>`), textTarget());
  assert.equal((result.value as string).length, MAX_STRING_CHARS);
  assert.equal(result.text, long);
});

test('a selector scope reads only the selected element', () => {
  const result = extractTarget(page('<h1 id="name">Kettle</h1><p>Other</p>'), textTarget({ selection: selector('#name') }));
  assert.deepEqual([result.ok, result.value, result.text], [true, 'Kettle', 'Kettle']);
});

test('a selector matching nothing is a selector_missing issue', () => {
  const result = extractTarget(page('<p>x</p>'), textTarget({ selection: selector('#gone') }));
  assert.equal(result.ok, false);
  assert.equal(result.value, null);
  assert.equal(result.issues[0]!.code, 'selector_missing');
});

test('a selector matching two elements is an ambiguity issue, not a guess', () => {
  const result = extractTarget(page('<p class="a">1</p><p class="a">2</p>'), textTarget({ selection: selector('p.a') }));
  assert.deepEqual(
    result.issues.map((i) => [i.target_id, i.code]),
    [['t', 'selector_ambiguous']],
  );
  assert.equal(result.value, null);
});

test('an invalid CSS selector is a selector_invalid issue, never a crash', () => {
  const result = extractTarget(page('<p>x</p>'), textTarget({ selection: selector('p[[[') }));
  assert.equal(result.ok, false);
  assert.equal(result.issues[0]!.code, 'selector_invalid');
  assert.match(result.issues[0]!.message, /not valid CSS/);
});

test('a selector too costly to match is a selector_too_costly issue and is not run', () => {
  const costly = selector('section div div div div div div span');
  const deep = `<main>${'<div>'.repeat(60)}${'<span class="s">x</span>'.repeat(5)}${'</div>'.repeat(60)}</main>`;
  const result = extractTarget(page(deep), textTarget({ selection: costly }));
  assert.deepEqual(
    result.issues.map((i) => i.code),
    ['selector_too_costly'],
  );
  // Judged from the selector alone, before any matching: a page it would match nothing on is refused the same way.
  const empty = extractTarget(page('<p>x</p>'), textTarget({ selection: costly }));
  assert.deepEqual(
    empty.issues.map((i) => i.code),
    ['selector_too_costly'],
  );
});

test('a text target with a phrase rule still has the text as its value', () => {
  const result = extractTarget(page('<p>Tickets on sale</p>'), textTarget({ rule: 'appears', phrase: 'on sale' }));
  assert.equal(result.value, 'Tickets on sale');
});

test('containsPhrase ignores case and whitespace differences', () => {
  assert.equal(containsPhrase('Tickets  ON\nsale now', 'on sale'), true);
  assert.equal(containsPhrase('Tickets sold out', 'on sale'), false);
  assert.equal(containsPhrase('anything', '   '), false);
});

test('phrase containment ignores case and whitespace', () => {
  assert.equal(containsPhrase('Back\u00a0in\n STOCK today', 'back in stock'), true);
  assert.equal(containsPhrase('Back in stock', 'out of stock'), false);
});

test('a blank phrase is contained nowhere', () => {
  assert.equal(containsPhrase('anything', '  '), false);
});
