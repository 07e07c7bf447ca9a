import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parsePatch } from 'diff';
import { DEFAULT_DIFF_BUDGET, MAX_DIFF_BYTES, TRUNCATION_MARKER, changeDiff } from '../../src/domain/text-diff.ts';

const unifiedDiff = (before: string | null, after: string | null): string => changeDiff(before, after).unified;
const MAX_EDIT_LENGTH = DEFAULT_DIFF_BUDGET.maxEditLength;

const bytes = (text: string): number => new TextEncoder().encode(text).length;
const lines = (prefix: string, count: number): string => Array.from({ length: count }, (_, i) => `${prefix} ${i}`).join('\n');

test('the diff has before/after headers and one hunk per changed region', () => {
  assert.equal(
    unifiedDiff('Price\n29.00\nIn stock', 'Price\n25.00\nIn stock'),
    '--- before\n+++ after\n@@ -1,3 +1,3 @@\n Price\n-29.00\n+25.00\n In stock\n',
  );
});

test('identical texts give the headers only', () => {
  assert.equal(unifiedDiff('same\ntext', 'same\ntext'), '--- before\n+++ after\n');
});

test('a missing before text is diffed as empty', () => {
  assert.equal(unifiedDiff(null, 'new\ntext'), '--- before\n+++ after\n@@ -0,0 +1,2 @@\n+new\n+text\n');
});

test('a missing after text is diffed as empty', () => {
  assert.equal(unifiedDiff('old', null), '--- before\n+++ after\n@@ -1,1 +0,0 @@\n-old\n');
});

test('both sides missing give the headers only', () => {
  assert.equal(unifiedDiff(null, null), '--- before\n+++ after\n');
});

test('line endings and a missing final newline are not changes', () => {
  assert.equal(unifiedDiff('a\r\nb\r\n', 'a\nb'), '--- before\n+++ after\n');
});

test('hunks keep three lines of context', () => {
  const before = lines('line', 20);
  const after = before.replace('line 10', 'LINE 10');
  const hunk = unifiedDiff(before, after).split('\n').slice(2);
  assert.equal(hunk[0], '@@ -8,7 +8,7 @@');
});

// Changes every `step`-th line; with a step above twice the context each
// change is its own region.
const everyNth = (count: number, step: number): [string, string] => {
  const before = Array.from({ length: count }, (_, i) => `line ${i}`);
  const after = before.map((line, i) => (i % step === 0 ? line.toUpperCase() : line));
  return [before.join('\n'), after.join('\n')];
};

test('texts with more edits than the cap are too large to compare in detail, with the changed line range', () => {
  const count = 8 * (MAX_EDIT_LENGTH / 2 + 10);
  const [before, after] = everyNth(count, 8);
  const diff = changeDiff(`head\n${before}\ntail`, `head\n${after}\ntail`);
  assert.equal(diff.detail, 'too_large');
  assert.equal(diff.unified, '--- before\n+++ after\n');
  // The first and last lines are the same on both sides; line 2 (the first "line 0") is the first to differ.
  const last = count - 1 - ((count - 1) % 8);
  assert.deepEqual(diff.hunks, [{ before_start: 2, before_count: last + 1, after_start: 2, after_count: last + 1, words: null }]);
});

test('a change past the time budget is too large to compare in detail', () => {
  const [before, after] = everyNth(4000, 8);
  const diff = changeDiff(before, after, { ...DEFAULT_DIFF_BUDGET, maxEditLength: 100_000, timeoutMs: 0 });
  assert.equal(diff.detail, 'too_large');
});

test('changed lines are compared word by word', () => {
  const diff = changeDiff('Title\nShips in November 2026\nFooter', 'Title\nShips in December 2026\nFooter');
  assert.deepEqual(diff.hunks, [
    {
      before_start: 2,
      before_count: 1,
      after_start: 2,
      after_count: 1,
      words: [
        { op: 'same', text: 'Ships in ' },
        { op: 'removed', text: 'November' },
        { op: 'added', text: 'December' },
        { op: 'same', text: ' 2026' },
      ],
    },
  ]);
});

test('blocks past the word budget keep their line ranges without words', () => {
  const diff = changeDiff('a\nold text\nz', 'a\nnew text\nz', { ...DEFAULT_DIFF_BUDGET, maxWordChars: 10 });
  assert.deepEqual(diff.hunks, [{ before_start: 2, before_count: 1, after_start: 2, after_count: 1, words: null }]);
});

test('a change at the end of a long text is found, with its context, however long the common start', () => {
  const prefix = lines('Lorem ipsum dolor sit amet', 30_000);
  const diff = changeDiff(`${prefix}\nNovember`, `${prefix}\nDecember`);
  assert.equal(diff.detail, 'complete');
  assert.equal(
    diff.unified,
    '--- before\n+++ after\n@@ -29998,4 +29998,4 @@\n Lorem ipsum dolor sit amet 29997\n Lorem ipsum dolor sit amet 29998\n' +
      ' Lorem ipsum dolor sit amet 29999\n-November\n+December\n',
  );
  assert.deepEqual(diff.hunks[0]?.words, [
    { op: 'removed', text: 'November' },
    { op: 'added', text: 'December' },
  ]);
});

test('an inserted line has an empty before range placed before the line that follows it', () => {
  const diff = changeDiff('1\n2\n3\n4\n5\n6\n7\n8', '1\n2\n3\n4\nnew\n5\n6\n7\n8');
  assert.equal(diff.unified.split('\n')[2], '@@ -2,6 +2,7 @@');
  assert.deepEqual(diff.hunks, [
    { before_start: 5, before_count: 0, after_start: 5, after_count: 1, words: [{ op: 'added', text: 'new' }] },
  ]);
});

test('a truncated diff says so', () => {
  assert.equal(changeDiff(null, lines('a fairly long line of captured page text', 10_000)).detail, 'truncated');
  assert.equal(changeDiff(null, lines('short', 100)).detail, 'complete');
});

test('texts with fewer edits than the cap get a hunk per changed region', () => {
  const [patch] = parsePatch(unifiedDiff(...everyNth(80, 8)));
  assert.ok(patch);
  assert.equal(patch.hunks.length, 10);
});

test('a diff above the cap is cut at a line boundary and ends with the marker', () => {
  const diff = unifiedDiff(null, lines('a fairly long line of captured page text', 10_000));
  assert.ok(bytes(diff) <= MAX_DIFF_BYTES);
  assert.ok(diff.endsWith(`\n${TRUNCATION_MARKER}`));
  assert.ok(diff.startsWith('--- before\n+++ after\n@@ '));
});

test('truncation counts bytes, not characters', () => {
  const diff = unifiedDiff(null, lines('€€€€€€€€€€€€€€€€€€€€', 10_000));
  assert.ok(bytes(diff) <= MAX_DIFF_BYTES);
  assert.ok(diff.endsWith(TRUNCATION_MARKER));
});

test('a diff under the cap is not truncated', () => {
  const diff = unifiedDiff(null, lines('short', 100));
  assert.ok(!diff.includes(TRUNCATION_MARKER));
});
