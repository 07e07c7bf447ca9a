import { decodeHtml } from './html-charset.ts';
import { storableText } from './storable-text.ts';

// A loaded page as the loaders hand it on: its HTML text (browser mode: the
// rendered DOM), or from the html loader the body's bytes with the charset its
// Content-Type named. The bytes are decoded where the page is parsed, in an
// extraction thread: on the event loop, decoding would delay every other
// check's fetch and statements (bench/findings.md).

export interface PageBytes {
  bytes: Uint8Array;
  /** the Content-Type's charset, null when it named none */
  charset: string | null;
}

export type PageSource = string | PageBytes;

/** The page's text as a browser would decode it, with what the store cannot hold replaced. */
export function pageText(source: PageSource): string {
  return typeof source === 'string' ? source : storableText(decodeHtml(source.bytes, source.charset).text);
}
