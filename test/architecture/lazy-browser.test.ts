import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

// playwright-core is loaded when a browser is first used (src/fetch/browser/chromium.ts):
// a process that never renders a page, and every test file, starts without it.

const SRC = resolve(import.meta.dirname, '..', '..', 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

test('the sources import playwright-core statically for its types only; its code is imported where a browser is used', () => {
  const statically = sourceFiles(SRC).filter((file) =>
    /^\s*(import|export)\s+(?!type\b)[^;]*?from\s+'playwright-core'/m.test(readFileSync(file, 'utf8')),
  );
  assert.deepEqual(
    statically.map((file) => relative(SRC, file)),
    [],
  );
});
