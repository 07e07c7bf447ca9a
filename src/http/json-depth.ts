// Request JSON may nest only so deep. Every walk after parsing (the NUL scan,
// schema validation, the services) may then recurse without risk: JSON nested
// 8,000 deep fits in 16 KiB and would overflow the stack of any of them.

/** Deepest nesting of objects and arrays a request body may hold. */
export const MAX_JSON_DEPTH = 32;

/** Whether the JSON text nests objects or arrays deeper than `max`; one pass, strings skipped. */
export function jsonNestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}
