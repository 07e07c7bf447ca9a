import { FILE_HEADERS_ONLY, createTwoFilesPatch, formatPatch } from 'diff';

// The `diff` of a ChangeDetail (DESIGN §4): a unified diff of the captured
// before/after text, line by line, with headers `--- before` / `+++ after`.

/** Largest diff returned, in UTF-8 bytes (200 KiB), marker included. */
export const MAX_DIFF_BYTES = 200 * 1024;

/** Appended, on its own line, when the diff was cut at MAX_DIFF_BYTES. */
export const TRUNCATION_MARKER = '[diff truncated at 200 KiB]\n';

/**
 * Above this many inserted plus deleted lines the line diff gives up (its cost
 * grows with the input size times this number: about 0.1 s at the cap for
 * 30,000-line texts) and the diff becomes one hunk replacing every before line
 * by every after line: still a correct diff, and for texts this different a
 * finer one would not read better.
 */
export const MAX_EDIT_LENGTH = 1000;

const CONTEXT_LINES = 3;

/**
 * Unified diff of two captured texts. A null side (snapshot unavailable) is
 * diffed as empty text, so the diff is always produced. Line endings are
 * normalised to "\n" and every line is terminated, so neither carriage returns
 * nor a missing final newline show up as changes. Identical texts give the two
 * header lines only. Output longer than MAX_DIFF_BYTES is cut at a line
 * boundary and ends with TRUNCATION_MARKER.
 */
export function unifiedDiff(beforeText: string | null, afterText: string | null): string {
  const before = splitLines(beforeText);
  const after = splitLines(afterText);
  const patch =
    createTwoFilesPatch('before', 'after', joinLines(before), joinLines(after), undefined, undefined, {
      context: CONTEXT_LINES,
      maxEditLength: MAX_EDIT_LENGTH,
      headerOptions: FILE_HEADERS_ONLY,
    }) ?? wholeReplacement(before, after);
  return truncate(patch);
}

function splitLines(text: string | null): string[] {
  if (text === null || text === '') return [];
  const lines = text.split(/\r\n|\r|\n/);
  // A trailing newline ends the last line rather than starting an empty one.
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

function joinLines(lines: readonly string[]): string {
  return lines.map((line) => `${line}\n`).join('');
}

function wholeReplacement(before: readonly string[], after: readonly string[]): string {
  return formatPatch(
    {
      oldFileName: 'before',
      newFileName: 'after',
      oldHeader: undefined,
      newHeader: undefined,
      hunks: [
        {
          oldStart: before.length === 0 ? 0 : 1,
          oldLines: before.length,
          newStart: after.length === 0 ? 0 : 1,
          newLines: after.length,
          lines: [...before.map((line) => `-${line}`), ...after.map((line) => `+${line}`)],
        },
      ],
    },
    FILE_HEADERS_ONLY,
  );
}

function byteLength(text: string): number {
  return new TextEncoder().encode(text).length;
}

function truncate(patch: string): string {
  if (byteLength(patch) <= MAX_DIFF_BYTES) return patch;
  const budget = MAX_DIFF_BYTES - byteLength(TRUNCATION_MARKER);
  // Whole lines only, so no line (or multi-byte character) is cut in half.
  let kept = 0;
  let used = 0;
  for (const line of patch.split(/(?<=\n)/)) {
    const size = byteLength(line);
    if (used + size > budget) break;
    used += size;
    kept += line.length;
  }
  return patch.slice(0, kept) + TRUNCATION_MARKER;
}
