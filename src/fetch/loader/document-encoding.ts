import type { Page, Response } from 'playwright-core';
import { htmlEncoding } from '../../domain/html-charset.ts';
import { parseContentType } from './http-headers.ts';

// Chromium reads an HTML document that declares no encoding as windows-1252,
// even when its bytes are valid UTF-8; html mode reads such a page as UTF-8
// (domain/html-charset.ts), as do the people who made it. Where the two
// disagree, the page is rendered again from the same bytes, declared in the
// encoding html mode reads them in, so both modes see the same text.

export interface Redeclared {
  /** the document's bytes as the site sent them */
  body: Buffer;
  /** the encoding html mode reads them in */
  encoding: string;
}

/** The document's bytes and html mode's encoding for them, when Chromium decoded them otherwise; null when they agree. */
export async function encodingToDeclare(page: Page, response: Response): Promise<Redeclared | null> {
  const [body, rendered] = await Promise.all([
    response.body().catch(() => null),
    page.evaluate(() => document.characterSet).catch(() => null),
  ]);
  // Bytes that are all ASCII read the same in every encoding a page may fall back to.
  if (body === null || rendered === null || body.every((byte) => byte < 0x80)) return null;
  const encoding = htmlEncoding(body, parseContentType(response.headers()['content-type']).charset);
  return encoding === rendered.toLowerCase() ? null : { body, encoding };
}

/** Headers that described the bytes as sent, not as served again (decompressed, whole). */
const TRANSFER_HEADERS = new Set(['content-encoding', 'content-length', 'transfer-encoding']);

/** Serves the next request for the response's URL from its own bytes, declared in `encoding`, without loading it again. */
export async function serveDeclared(page: Page, response: Response, { body, encoding }: Redeclared): Promise<void> {
  const mime = parseContentType(response.headers()['content-type']).mime ?? 'text/html';
  const headers = Object.fromEntries(Object.entries(response.headers()).filter(([name]) => !TRANSFER_HEADERS.has(name)));
  await page.route(
    (url) => url.href === response.url(),
    (route) => route.fulfill({ status: response.status(), headers: { ...headers, 'content-type': `${mime}; charset=${encoding}` }, body }),
    { times: 1 },
  );
}
