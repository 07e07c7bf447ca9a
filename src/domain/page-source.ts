import { decodeHtml } from './html-charset.ts';
import { storableText } from './storable-text.ts';

// A loaded page as the loaders hand it on: its HTML text (browser mode: the
// rendered DOM), or from the html loader the body's bytes with the charset its
// Content-Type named and the kind of document it is. The bytes are decoded
// where the page is parsed, in an extraction thread: on the event loop,
// decoding would delay every other check's fetch and statements
// (docs/decisions/0025-html-checks-where-a-slots-time-goes-and.md).

/** The kinds of document pagewatch reads: HTML pages, JSON documents (APIs) and PDF files. */
export const DOCUMENT_FORMATS = ['html', 'json', 'pdf'] as const;
export type DocumentFormat = (typeof DOCUMENT_FORMATS)[number];

export interface PageBytes {
  bytes: Uint8Array;
  /** the Content-Type's charset, null when it named none */
  charset: string | null;
  /** omitted: html */
  format?: DocumentFormat;
}

export type PageSource = string | PageBytes;

export function sourceFormat(source: PageSource): DocumentFormat {
  return typeof source === 'string' ? 'html' : (source.format ?? 'html');
}

/** The page's text as a browser would decode it, with what the store cannot hold replaced. */
export function pageText(source: PageSource): string {
  return typeof source === 'string' ? source : storableText(decodeHtml(source.bytes, source.charset).text);
}
