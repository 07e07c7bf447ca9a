// Where an ignore pattern took a part out of a text, the punctuation that
// only framed that part would stay behind: "Sale (5 people viewing)" would
// show "Sale ()", "3 min ago · 12 comments · share" a doubled "·". The two
// sides of each removal are joined without it; where two separators, or a
// separator and closing punctuation, meet, one stays. Plain string work at
// the seam only (no expression over the whole text), so the cost stays linear.

const PAIRS: Readonly<Record<string, string>> = { '(': ')', '[': ']', '{': '}' };
const SEPARATORS = new Set(['·', '•', '|', '/', '-', '–', '—', ':', ',', ';']);
const CLOSING = new Set(['.', ',', ';', ':', '!', '?']);

function isBlank(c: string | undefined): boolean {
  return c === ' ' || c === '\t' || c === '\u00a0';
}

function trimEndBlanks(s: string): string {
  let end = s.length;
  while (end > 0 && isBlank(s[end - 1])) end -= 1;
  return s.slice(0, end);
}

function trimStartBlanks(s: string): string {
  let start = 0;
  while (start < s.length && isBlank(s[start])) start += 1;
  return s.slice(start);
}

/** The text before a removed part joined to the text after it, without punctuation that framed the part alone. */
export function joinAcrossRemoval(before: string, after: string): string {
  let left = trimEndBlanks(before);
  let right = trimStartBlanks(after);
  // Words the removed part stood between stay apart; a part cut from inside a word leaves it whole.
  let spaced = left !== before || right !== after;
  // "(" and ")" that enclosed only what was removed go with it, and so on outwards.
  while (left !== '' && right !== '' && PAIRS[left.at(-1)!] === right[0]) {
    const outerLeft = left.slice(0, -1);
    const outerRight = right.slice(1);
    left = trimEndBlanks(outerLeft);
    right = trimStartBlanks(outerRight);
    spaced ||= left !== outerLeft || right !== outerRight;
  }
  const gap = spaced ? ' ' : '';
  const open = left.at(-1);
  const close = right[0];
  const lineStart = left === '' || open === '\n';
  const lineEnd = right === '' || close === '\n';
  const separatorBefore = open !== undefined && SEPARATORS.has(open);
  // A separator on both sides ("Colours: Green; Blue" without "Green"): the first one is enough.
  if (separatorBefore && close !== undefined && SEPARATORS.has(close)) return `${left} ${trimStartBlanks(right.slice(1))}`;
  // A separator before the sentence's closing punctuation separates nothing.
  if (separatorBefore && close !== undefined && CLOSING.has(close)) return trimEndBlanks(left.slice(0, -1)) + right;
  // A separator left at the start or the end of a line separates nothing.
  if (lineStart && close !== undefined && SEPARATORS.has(close)) return left + trimStartBlanks(right.slice(1));
  if (lineEnd && separatorBefore) return trimEndBlanks(left.slice(0, -1)) + right;
  // Punctuation that closed a sentence sits against the word before it.
  if (close !== undefined && CLOSING.has(close)) return left + right;
  if (lineStart || lineEnd) return left + right;
  return left + gap + right;
}
