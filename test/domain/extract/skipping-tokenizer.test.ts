import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Parser, Tokenizer, type Handler, type ParserOptions } from 'htmlparser2';
import { loadRealPages } from '../../../scripts/realpages-eval.ts';
import { SkippingTokenizer } from '../../../src/domain/extract/skipping-tokenizer.ts';

// The skipping tokenizer must give htmlparser2's parser exactly the events
// its own tokenizer gives: the same callbacks, with the same arguments, at
// the same source positions. Checked on every page of the corpora and on
// the cases where the skipped stretches end (entities, quotes, scripts,
// comments, tag and attribute names, unterminated constructs, chunk ends).

const CORPORA = resolve(import.meta.dirname, '../../corpora');

function corpusPages(): { name: string; html: string }[] {
  const real = loadRealPages(join(CORPORA, 'realpages')).map((page) => ({ name: page.key, html: page.html.toString('utf8') }));
  const availabilityDir = join(CORPORA, 'availability');
  const availability = readdirSync(availabilityDir)
    .filter((name) => name.endsWith('.html'))
    .map((name) => ({ name, html: readFileSync(join(availabilityDir, name), 'utf8') }));
  return [...real, ...availability];
}

type Event = (string | number | boolean | null | undefined | Record<string, string>)[];

/** Every parser event with its arguments and the parser's start and end positions. */
function events(chunks: string[], options: ParserOptions = {}): Event[] {
  const log: Event[] = [];
  let parser: Parser | null = null;
  const at = (...event: Event) => log.push([...event, parser!.startIndex, parser!.endIndex]);
  const handler: Partial<Handler> = {
    onopentagname: (name) => at('opentagname', name),
    onattribute: (name, value, quote) => at('attribute', name, value, quote),
    onopentag: (name, attribs, implied) => at('opentag', name, { ...attribs }, implied),
    ontext: (data) => at('text', data),
    onclosetag: (name, implied) => at('closetag', name, implied),
    oncomment: (data) => at('comment', data),
    oncdatastart: () => at('cdatastart'),
    onprocessinginstruction: (name, data) => at('instruction', name, data),
    onend: () => at('end'),
  };
  parser = new Parser(handler, options);
  for (const chunk of chunks) parser.write(chunk);
  parser.end();
  return log;
}

function assertSameEvents(chunks: string[], options: ParserOptions = {}, label = chunks.join('')): void {
  const expected = events(chunks, options);
  const actual = events(chunks, { ...options, Tokenizer: SkippingTokenizer });
  assert.deepEqual(actual, expected, label.slice(0, 200));
}

const CASES = [
  'plain text only',
  'a &amp; b &lt;c&gt; &notanentity; &#x41;&#66; &',
  '<p class="a &amp; b" title=\'it&apos;s\' data-x=unquoted&amp;more hidden>t</p>',
  '<a href="x?a=1&b=2">&copy 2024</a><img alt="">',
  '<div class="never closed',
  "<div title='never closed",
  '<script>if (a < b && c > d) { s = "</scr" + "ipt>"; }\u001c<</script>after',
  '<script>no end tag at all < here',
  '<style>p::before { content: "<&>" }</style><textarea>a &amp; <b>b</b></textarea><title>T &amp; U</title>',
  '<!-- comment with <tags> & ampersands --><!----><!--->x<!-- unterminated',
  '<![CDATA[ raw <data> ]]><?xml version="1.0"?><!DOCTYPE html>',
  '<svg viewBox="0 0 1 1"><path d="M0 0L1 1"/><foreignObject><p>in</p></foreignObject></svg>',
  '<ul><li>one<li>two</ul></p><br/></br>text at the end &',
  'trailing entity at the end &amp',
  '<DIV Class=A\tdata-X\f=1\rID/><Img SRC=x/ ><br\n/></DIV\n><sp',
  '<p data-long-attribute-name-without-value',
  '<p data-never-ends=',
  '</closing-name-never-ends',
];

test('every corpus page gives the same parser events as htmlparser2’s own tokenizer', () => {
  const pages = corpusPages();
  assert.ok(pages.length >= 47, `corpus pages found: ${pages.length}`);
  for (const { name, html } of pages) assertSameEvents([html], {}, name);
});

test('entities, quotes, scripts, comments and unterminated constructs give the same events', () => {
  for (const html of CASES) assertSameEvents([html]);
});

test('a page written in chunks gives the same events, whatever the chunk boundaries', () => {
  for (const html of CASES) {
    for (const size of [1, 2, 3, 7]) {
      const chunks = Array.from({ length: Math.ceil(html.length / size) }, (_, i) => html.slice(i * size, (i + 1) * size));
      assertSameEvents(chunks, {}, `${html} in chunks of ${size}`);
    }
  }
});

test('without entity decoding, and in XML mode, the events are the same too', () => {
  for (const html of CASES) {
    assertSameEvents([html], { decodeEntities: false });
    assertSameEvents([html], { xmlMode: true });
  }
});

test('the methods the skipping tokenizer overrides are still htmlparser2’s (a rename would silently stop the skipping)', () => {
  const own = Tokenizer.prototype as unknown as Record<string, unknown>;
  const overridden = [
    'stateText',
    'stateInAttributeValueDoubleQuotes',
    'stateInAttributeValueSingleQuotes',
    'stateInTagName',
    'stateInClosingTagName',
    'stateInAttributeName',
    'fastForwardTo',
  ];
  for (const method of overridden) {
    assert.equal(typeof own[method], 'function', method);
    assert.notEqual((SkippingTokenizer.prototype as unknown as Record<string, unknown>)[method], own[method], method);
  }
});
