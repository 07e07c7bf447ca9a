import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parsePatch } from 'diff';
import { MAX_DIFF_BYTES, MAX_EDIT_LENGTH, TRUNCATION_MARKER, unifiedDiff } from '../../src/domain/text-diff.ts';

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

test('texts with more edits than the cap become one whole-replacement hunk', () => {
  const count = 8 * (MAX_EDIT_LENGTH / 2 + 10);
  const [patch] = parsePatch(unifiedDiff(...everyNth(count, 8)));
  assert.ok(patch);
  assert.equal(patch.hunks.length, 1);
  const [hunk] = patch.hunks;
  assert.ok(hunk);
  assert.deepEqual([hunk.oldStart, hunk.oldLines, hunk.newStart, hunk.newLines], [1, count, 1, count]);
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
