// A JSON document (an API's answer) read for its targets. JSON is UTF-8
// (RFC 8259); a document nested deeper than MAX_JSON_DEPTH is refused before it
// is parsed, so no reader of it (paths, canonical text, the preview's list)
// needs more than that many levels of recursion.

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

export const MAX_JSON_DEPTH = 64;

export type JsonReading = { ok: true; value: JsonValue } | { ok: false; code: 'json_invalid'; message: string };

/** The deepest nesting of arrays and objects, counted outside strings; stops counting past `limit`. */
function nestingDepth(text: string, limit: number): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      depth++;
      if (depth > deepest && (deepest = depth) > limit) return deepest;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return deepest;
}

export function readJson(bytes: Uint8Array): JsonReading {
  const text = new TextDecoder('utf-8').decode(bytes);
  if (nestingDepth(text, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) {
    return { ok: false, code: 'json_invalid', message: `the JSON document is nested more than ${MAX_JSON_DEPTH} levels deep` };
  }
  try {
    return { ok: true, value: JSON.parse(text) as JsonValue };
  } catch (error) {
    return { ok: false, code: 'json_invalid', message: `the document is not valid JSON: ${(error as Error).message}` };
  }
}

/** JSON text with object keys sorted, so the order a server writes them in is no change. */
export function canonicalJsonText(value: JsonValue): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJsonText).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJsonText(value[k]!)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
