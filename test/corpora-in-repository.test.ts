import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

// A fresh clone runs every corpus test: the corpora live in the repository,
// each beside the note saying where it came from and under which licence.
const CORPORA = resolve(import.meta.dirname, 'corpora');

test('every corpus the tests and evaluations read is in the repository', () => {
  const files = [
    'prices.json',
    'availability/cases.json',
    'availability/out-of-stock-phrases.json',
    'availability/in-stock-override.json',
    'ssrf-urls.txt',
    'realpages/ground-truth.json',
    'realpages/errata.json',
  ];
  assert.deepEqual(
    files.filter((f) => !existsSync(join(CORPORA, f))),
    [],
  );
});

test('every corpus has its source note, and the real pages their licence', () => {
  const notes = ['prices.SOURCE.md', 'availability/SOURCE.md', 'ssrf.SOURCE.md', 'realpages/SOURCE.md', 'realpages/LICENSE'];
  assert.deepEqual(
    notes.filter((f) => !existsSync(join(CORPORA, f))),
    [],
  );
});

test('every annotated real page has its snapshot', () => {
  const truth = JSON.parse(readFileSync(join(CORPORA, 'realpages/ground-truth.json'), 'utf8')) as Record<string, unknown>;
  const snapshots = new Set(readdirSync(join(CORPORA, 'realpages/html')));
  assert.deepEqual(
    Object.keys(truth).filter((key) => !snapshots.has(`${key}.html.gz`)),
    [],
  );
  assert.equal(Object.keys(truth).length, 47);
});
