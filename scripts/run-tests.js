#!/usr/bin/env node
// Runs every test/**/*.test.ts file with node's own test runner through tsx.
// Extra arguments narrow the run to files whose path contains one of them.
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
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
// One embedded store is created and migrated for the whole run; each file's
// embedded stores start from its snapshot (test/helpers/migrated-snapshot.ts).
// Also on PostgreSQL: the embedded store's own tests run there too.
const env = { ...process.env };
const snapshotDir = mkdtempSync(join(tmpdir(), 'pw-test-snapshot-'));
env.PAGEWATCH_TEST_PGLITE_SNAPSHOT = join(snapshotDir, 'migrated.tar');
const made = spawnSync(process.execPath, ['--import', 'tsx', 'test/helpers/pglite-snapshot.ts', env.PAGEWATCH_TEST_PGLITE_SNAPSHOT], {
  stdio: 'inherit',
});
if (made.status !== 0) process.exit(made.status ?? 1);
// PAGEWATCH_TEST_MOVED_STORE (with TEST_DATABASE_URL): every test schema is
// filled by moving one populated embedded store into it, made here once
// (test/helpers/populated-snapshot.ts, test-database.ts; issue #43).
if (env.PAGEWATCH_TEST_MOVED_STORE) {
  if (!env.TEST_DATABASE_URL) {
    console.error('PAGEWATCH_TEST_MOVED_STORE moves a store into PostgreSQL: set TEST_DATABASE_URL too');
    process.exit(1);
  }
  env.PAGEWATCH_TEST_POPULATED_SNAPSHOT = join(snapshotDir, 'populated.tar');
  const populated = spawnSync(
    process.execPath,
    ['--import', 'tsx', 'test/helpers/populated-snapshot.ts', env.PAGEWATCH_TEST_POPULATED_SNAPSHOT],
    { stdio: 'inherit', env },
  );
  if (populated.status !== 0) process.exit(populated.status ?? 1);
}
// TAP on stdout as always; after it, on stderr, the failed tests and the slowest files.
const reporters = [
  '--test-reporter=tap',
  '--test-reporter-destination=stdout',
  '--test-reporter=./scripts/test-summary-reporter.js',
  '--test-reporter-destination=stderr',
];
// node 20 bounds each file as a whole by --test-timeout too, not only each
// test: a file of many tests on a busy machine (or beside the other store's
// suite) outran 120 s without any test hanging. Ten minutes still ends a hang.
const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-timeout=600000', ...reporters, ...files],
  {
    stdio: 'inherit',
    env,
  },
);
rmSync(snapshotDir, { recursive: true, force: true });
process.exit(result.status ?? 1);
