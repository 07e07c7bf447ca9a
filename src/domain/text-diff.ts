import { FILE_HEADERS_ONLY, diffWordsWithSpace, formatPatch, structuredPatch, type StructuredPatchHunk } from 'diff';

// The diff of a change's captured texts (DESIGN §4), computed once when the
// change is recorded, in the extraction threads, within a size and time
// budget: a line diff first, then the words within each changed block. Past
// the budget the diff says the texts are "too large to compare in detail" and
// still gives the changed line range.

/** Largest unified diff kept, in UTF-8 bytes (200 KiB), marker included. */
export const MAX_DIFF_BYTES = 200 * 1024;

/** Appended, on its own line, when the diff was cut at MAX_DIFF_BYTES. */
export const TRUNCATION_MARKER = '[diff truncated at 200 KiB]\n';

export const TOO_LARGE_NOTE = 'too large to compare in detail';

export interface DiffBudget {
  /** inserted plus deleted lines the line diff may find before it gives up */
  maxEditLength: number;
  /** time the line diff and the word diffs may take together */
  timeoutMs: number;
  /** characters of a changed block (both sides) above which its words are not compared */
  maxWordChars: number;
}

export const DEFAULT_DIFF_BUDGET: DiffBudget = { maxEditLength: 1000, timeoutMs: 1000, maxWordChars: 20_000 };

export interface WordPart {
  op: 'same' | 'removed' | 'added';
  text: string;
}

/** One changed block: 1-based line ranges (a count of 0 is an empty range placed before that line) and its word diff. */
export interface DiffHunk {
  before_start: number;
  before_count: number;
  after_start: number;
  after_count: number;
  /** null when the block is past the word budget */
  words: WordPart[] | null;
}

export interface ChangeDiff {
  /** complete; truncated: `unified` was cut at MAX_DIFF_BYTES; too_large: only the changed line range is known */
  detail: 'complete' | 'truncated' | 'too_large';
  /** unified diff with headers --- before / +++ after and 3 lines of context; the headers only when too_large */
  unified: string;
  hunks: DiffHunk[];
}

const CONTEXT_LINES = 3;
const HEADERS = '--- before\n+++ after\n';

/**
 * The diff of two captured texts. A null side (snapshot unavailable) is
 * diffed as empty text. Line endings are normalised and every line is
 * terminated, so neither carriage returns nor a missing final newline show up
 * as changes. Identical texts give the headers and no hunk.
 */
export function changeDiff(beforeText: string | null, afterText: string | null, budget: DiffBudget = DEFAULT_DIFF_BUDGET): ChangeDiff {
  const deadline = performance.now() + budget.timeoutMs;
  const before = splitLines(beforeText);
  const after = splitLines(afterText);
  // Most changes touch a few lines of a long text: the common head and tail
  // are not diffed at all, only kept as context.
  const head = commonHead(before, after);
  const tail = commonTail(before, after, head);
  if (head === before.length && head === after.length) return { detail: 'complete', unified: HEADERS, hunks: [] };
  const from = Math.max(0, head - CONTEXT_LINES);
  const oneSided = head + tail === before.length || head + tail === after.length;
  const patch = structuredPatch(
    'before',
    'after',
    joinLines(before.slice(from, before.length - tail + Math.min(tail, CONTEXT_LINES))),
    joinLines(after.slice(from, after.length - tail + Math.min(tail, CONTEXT_LINES))),
    undefined,
    undefined,
    // Lines only added or only removed are one block whatever their number: no edit search to bound.
    { context: CONTEXT_LINES, maxEditLength: oneSided ? Infinity : budget.maxEditLength, timeout: budget.timeoutMs },
  );
  if (patch === undefined) {
    const range = {
      before_start: head + 1,
      before_count: before.length - tail - head,
      after_start: head + 1,
      after_count: after.length - tail - head,
      words: null,
    };
    return { detail: 'too_large', unified: HEADERS, hunks: [range] };
  }
  const hunks = patch.hunks.map((h) => shifted(h, from));
  const unified = truncate(formatPatch({ ...patch, hunks }, FILE_HEADERS_ONLY));
  const blocks = hunks.flatMap((h) => changedBlocks(h, budget, deadline));
  return { detail: unified.endsWith(TRUNCATION_MARKER) ? 'truncated' : 'complete', unified, hunks: blocks };
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

function commonHead(a: readonly string[], b: readonly string[]): number {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return n;
}

function commonTail(a: readonly string[], b: readonly string[], head: number): number {
  let n = 0;
  while (n < a.length - head && n < b.length - head && a[a.length - 1 - n] === b[b.length - 1 - n]) n++;
  return n;
}

/** A hunk of the diffed slice, numbered as in the whole texts. */
function shifted(hunk: StructuredPatchHunk, offset: number): StructuredPatchHunk {
  return { ...hunk, oldStart: hunk.oldStart + offset, newStart: hunk.newStart + offset };
}

/** The runs of removed and added lines of a hunk, each with its word diff while the budget lasts. */
function changedBlocks(hunk: StructuredPatchHunk, budget: DiffBudget, deadline: number): DiffHunk[] {
  const blocks: DiffHunk[] = [];
  // 1-based line numbers of the next line on each side.
  let oldLine = hunk.oldStart;
  let newLine = hunk.newStart;
  let removed: string[] = [];
  let added: string[] = [];
  const flush = () => {
    if (removed.length === 0 && added.length === 0) return;
    blocks.push({
      before_start: oldLine - removed.length,
      before_count: removed.length,
      after_start: newLine - added.length,
      after_count: added.length,
      words: wordsOf(removed, added, budget, deadline),
    });
    removed = [];
    added = [];
  };
  for (const line of hunk.lines) {
    if (line.startsWith('-')) {
      removed.push(line.slice(1));
      oldLine++;
    } else if (line.startsWith('+')) {
      added.push(line.slice(1));
      newLine++;
    } else if (line.startsWith(' ')) {
      flush();
      oldLine++;
      newLine++;
    }
  }
  flush();
  return blocks;
}

function wordsOf(removed: string[], added: string[], budget: DiffBudget, deadline: number): WordPart[] | null {
  const before = removed.join('\n');
  const after = added.join('\n');
  const left = deadline - performance.now();
  if (before.length + after.length > budget.maxWordChars || left <= 0) return null;
  const parts = diffWordsWithSpace(before, after, { timeout: left });
  if (parts === undefined) return null;
  return parts.map((p) => ({ op: p.added ? 'added' : p.removed ? 'removed' : 'same', text: p.value }));
}

function byteLength(text: string): number {
  return Buffer.byteLength(text, 'utf8');
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

/** A block's line ranges in words, e.g. "lines 12–40 before, lines 12–44 after". */
export function describeHunk(hunk: DiffHunk): string {
  const range = (start: number, count: number, side: string) =>
    count === 0
      ? `no lines ${side} (at line ${start})`
      : count === 1
        ? `line ${start} ${side}`
        : `lines ${start}–${start + count - 1} ${side}`;
  return `${range(hunk.before_start, hunk.before_count, 'before')}, ${range(hunk.after_start, hunk.after_count, 'after')}`;
}
