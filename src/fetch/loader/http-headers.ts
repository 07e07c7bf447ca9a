import type { DocumentFormat } from '../../domain/page-source.ts';

// Reading the response headers a page load cares about.

type HeaderValue = string | string[] | undefined;

/** The first value of a header that may repeat. */
export function firstHeader(value: HeaderValue): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

export interface ContentType {
  /** lower-case essence such as "text/html"; null when the header is missing or unreadable */
  mime: string | null;
  charset: string | null;
}

export function parseContentType(value: HeaderValue): ContentType {
  const text = firstHeader(value);
  if (!text) return { mime: null, charset: null };
  const [essence = '', ...params] = text.split(';');
  const mime = essence.trim().toLowerCase();
  const charsetParam = params.map((p) => p.trim()).find((p) => /^charset\s*=/i.test(p));
  const charset = charsetParam
    ? charsetParam
        .replace(/^charset\s*=\s*/i, '')
        .replace(/^["']|["']$/g, '')
        .trim()
    : null;
  return { mime: mime.includes('/') ? mime : null, charset: charset || null };
}

export function isHtmlMime(mime: string): boolean {
  return mime === 'text/html' || mime === 'application/xhtml+xml';
}

/** The document format a content type is read as (JSON: application/json and any +json type), or null when pagewatch reads no such type. */
export function documentFormatOf(mime: string): DocumentFormat | null {
  if (isHtmlMime(mime)) return 'html';
  if (mime === 'application/json' || mime.endsWith('+json')) return 'json';
  if (mime === 'application/pdf') return 'pdf';
  return null;
}

// For a response without Content-Type: the start of an HTML document,
// after optional whitespace and UTF-8 BOM, read as latin1 (a subset of the WHATWG sniffing table).
const HTML_START =
  /^(?:\xef\xbb\xbf)?\s*<(?:!doctype\s+html|html|head|body|title|script|!--|p\b|div|table|a\b|br|h1|font|iframe|style|b\b)/i;

export function looksLikeHtml(bytes: Uint8Array): boolean {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, 512)).toString('latin1');
  return HTML_START.test(head);
}

/**
 * Seconds to wait from a Retry-After header: delta-seconds or an HTTP date
 * (relative to now, never negative); undefined when absent or unreadable.
 */
export function parseRetryAfter(value: HeaderValue, now: number = Date.now()): number | undefined {
  const text = firstHeader(value)?.trim();
  if (!text) return undefined;
  if (/^\d+$/.test(text)) return Number(text);
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - now) / 1000));
}
