#!/usr/bin/env node
// `npm test`: the suite (scripts/run-tests.js; arguments narrow it to files
// whose path contains one of them). Coverage is measured only when
// PAGEWATCH_COVERAGE_DIR names where to keep it (.ci/run does, per store):
// c8 over every process of the run costs a share of the suite's CPU that only
// a coverage report needs (docs/decisions/0065-test-suite-coverage-only-when-asked.md).
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

const coverageDir = process.env.PAGEWATCH_COVERAGE_DIR;
const suite = [new URL('./run-tests.js', import.meta.url).pathname, ...process.argv.slice(2)];
const args = coverageDir
  ? [
      createRequire(import.meta.url).resolve('c8/bin/c8.js'),
      '--reporter=text-summary',
      // Judged by the sources a compiled file maps back to (the test build's .test-build-*/src/ maps to src/): the
      // extraction thread's bundle (scripts/bundle-threads.js) maps to its packages too, which are not ours to cover.
      '--include=src/**',
      '--exclude-after-remap',
      `--report-dir=${coverageDir}`,
      process.execPath,
      ...suite,
    ]
  : suite;
const run = spawnSync(process.execPath, args, { stdio: 'inherit' });
process.exit(run.status ?? 1);
