// Turns HTML bytes into text the way a browser would pick the encoding:
// byte order mark, then the Content-Type charset, then a <meta> declaration
// near the top, then UTF-8 if the bytes are valid UTF-8, else windows-1252
// (the web's historical default). Node's TextDecoder has full ICU, so every
// WHATWG encoding label (shift_jis, iso-8859-x, koi8-r, gbk, …) works.

import { isUtf8 } from 'node:buffer';

// Browsers look for <meta charset> in the first 1024 bytes; we allow a little
// more for pages with long comments or inline scripts before it.
const PRESCAN_BYTES = 4096;

const META_CHARSET = /<meta\b[^>]*?\bcharset\s*=\s*["']?\s*([a-z0-9_.:-]+)/i;

function decoderFor(label: string): TextDecoder | null {
  try {
    return new TextDecoder(label.trim());
  } catch {
    return null;
  }
}

function fromBom(bytes: Uint8Array): string | null {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return 'utf-8';
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be';
  return null;
}

function fromMeta(bytes: Uint8Array): TextDecoder | null {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, PRESCAN_BYTES)).toString('latin1');
  const label = META_CHARSET.exec(head)?.[1];
  if (!label) return null;
  // A document whose <meta> we could read as ASCII is not UTF-16 (HTML spec).
  return decoderFor(/^utf-16/i.test(label) ? 'utf-8' : label);
}

function decoderOf(bytes: Uint8Array, headerCharset: string | null): TextDecoder {
  const bom = fromBom(bytes);
  return (
    (bom ? decoderFor(bom) : null) ??
    (headerCharset ? decoderFor(headerCharset) : null) ??
    fromMeta(bytes) ??
    // validated without decoding: a fatal decoder would make the whole text only to throw it away
    new TextDecoder(isUtf8(bytes) ? 'utf-8' : 'windows-1252')
  );
}

/** The WHATWG name of the encoding the document is read in (e.g. utf-8, windows-1252). */
export function htmlEncoding(bytes: Uint8Array, headerCharset: string | null): string {
  return decoderOf(bytes, headerCharset).encoding;
}

/** The document text and the encoding used to read it. */
export function decodeHtml(bytes: Uint8Array, headerCharset: string | null): { text: string; encoding: string } {
  const decoder = decoderOf(bytes, headerCharset);
  // Node 20's one-shot decode() takes a Latin-1 shortcut for windows-1252 that
  // turns 0x80-0x9F (€, ‘ ’, …) into C1 controls; the streaming path is correct.
  const text = decoder.decode(bytes, { stream: true }) + decoder.decode();
  return { text, encoding: decoder.encoding };
}
