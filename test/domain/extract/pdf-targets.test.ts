import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extractFromDocument, outlineDocument, readDocument } from '../../../src/domain/extract/document.ts';
import type { Target } from '../../../src/domain/targets.ts';
import { makePdf, type PdfPage } from '../../helpers/pdf-documents.ts';

const URL_ = 'https://city.example/timetable.pdf';

const PRICE_LIST: PdfPage[] = [
  {
    lines: [{ text: 'Price list 2026', size: 20 }, { text: 'Espresso machine Duo' }, { text: 'Price: 1.299,00 EUR' }],
    links: ['https://shop.example/duo', 'https://shop.example/terms'],
  },
  { lines: [{ text: 'Terms', size: 16 }, { text: 'Valid from 1 March 2026' }] },
];

function pdf(pages: PdfPage[], options: { encrypted?: boolean } = {}) {
  return readDocument({ bytes: makePdf(pages, options), charset: null, format: 'pdf' }, URL_);
}

const whole = (fields: Partial<Target>): Target => ({ id: 't', kind: 'text', selection: { scope: 'page' }, ...fields });

test("a PDF's text is read page by page, line by line, for a text target on the whole document", async () => {
  const text = extractFromDocument(await pdf(PRICE_LIST), whole({}));
  assert.equal(text.ok, true);
  assert.equal(
    text.text,
    'Price list 2026\nEspresso machine Duo\nPrice: 1.299,00 EUR\nTerms\nValid from 1 March 2026\nhttps://shop.example/duo https://shop.example/terms',
  );
});

test('a price in a PDF is read as on a page, in the target currency', async () => {
  const price = extractFromDocument(await pdf(PRICE_LIST), whole({ kind: 'price', currency: 'EUR', decimal: ',' }));
  assert.deepEqual([price.ok, price.value], [true, 129900]);
});

const TARIFF: PdfPage[] = [
  {
    lines: [{ text: 'Tariff 2026', size: 18 }],
    table: [
      ['Product', 'Volume', 'Price'],
      ['Kettle', '1.7 l', '24,99 EUR'],
    ],
  },
];

test("a table's rows are read as lines with their cells apart, so a price is found in its row", async () => {
  const document = await pdf(TARIFF);
  assert.equal(extractFromDocument(document, whole({})).text, 'Tariff 2026\nProduct Volume Price\nKettle 1.7 l 24,99 EUR');
  const price = extractFromDocument(document, whole({ kind: 'price', currency: 'EUR' }));
  assert.deepEqual([price.ok, price.value], [true, 2499]);
});

test("links are the PDF's link annotations", async () => {
  const links = extractFromDocument(await pdf(PRICE_LIST), whole({ kind: 'links' }));
  assert.deepEqual(links.value, ['https://shop.example/duo', 'https://shop.example/terms']);
});

test('a selector, an XPath or a JSONPath on a PDF is selector_missing: a PDF is read whole', async () => {
  const document = await pdf(PRICE_LIST);
  for (const selection of [
    { scope: 'selector', selector: 'p' },
    { scope: 'xpath', expression: '//p' },
    { scope: 'json', path: '$' },
  ] as Target['selection'][]) {
    assert.equal(extractFromDocument(document, whole({ selection })).issues[0]?.code, 'selector_missing', selection.scope);
  }
});

test("the preview lists a PDF's pages and headings; its title is the first heading", async () => {
  const outline = outlineDocument(await pdf(PRICE_LIST));
  assert.equal(outline.title, 'Price list 2026');
  assert.deepEqual(
    outline.elements.map((e) => [e.selector, e.tag, e.text]),
    [
      ['page 1', 'page', 'Price list 2026 Espresso machine Duo Price: 1.299,00 EUR'],
      ['page 1', 'heading', 'Price list 2026'],
      ['page 2', 'page', 'Terms Valid from 1 March 2026'],
      ['page 2', 'heading', 'Terms'],
    ],
  );
});

test('an encrypted PDF is pdf_unreadable, never an empty value', async () => {
  const document = await pdf(PRICE_LIST, { encrypted: true });
  const result = extractFromDocument(document, whole({}));
  assert.deepEqual([result.value, result.issues[0]?.code], [null, 'pdf_unreadable']);
  assert.match(result.issues[0]?.message ?? '', /encrypted/u);
  assert.equal(outlineDocument(document).unreadable?.code, 'pdf_unreadable');
});

test('a PDF without a text layer (a scan) is pdf_unreadable', async () => {
  const result = extractFromDocument(await pdf([{ content: Buffer.from('0.5 g 0 0 595 842 re f') }]), whole({}));
  assert.equal(result.issues[0]?.code, 'pdf_unreadable');
  assert.match(result.issues[0]?.message ?? '', /no text layer/u);
});

test('a file that is not a PDF is pdf_unreadable', async () => {
  const document = await readDocument({ bytes: Buffer.from('<html>not a pdf</html>'), charset: null, format: 'pdf' }, URL_);
  assert.equal(extractFromDocument(document, whole({})).issues[0]?.code, 'pdf_unreadable');
});
