#!/usr/bin/env node
// Runs every test/**/*.test.ts file with node's own test runner through tsx.
// Extra arguments narrow the run to files whose path contains one of them.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

function findTests(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return findTests(path);
    return name.endsWith('.test.ts') ? [path] : [];
  });
}

const filters = process.argv.slice(2);
const files = findTests('test')
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .sort();
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-timeout=120000', ...files], {
  stdio: 'inherit',
});
process.exit(result.status ?? 1);
