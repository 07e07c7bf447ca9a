// A node --test reporter that prints, once the run ends, every failed test with
// its file and the first lines of its error, then the slowest files with their
// wall times and the dearest with their CPU times: CI shows only a log's tail,
// and the TAP above it is long.
import { existsSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { CPU_LOG_VARIABLE } from './test-batches.js';

const SLOWEST = 15;
const ERROR_LINES = 8;
// A file that fails outside any test (an import that throws, a crash) has only
// its stderr to say why.
const STDERR_LINES = 12;

function firstLines(text, n) {
  const lines = String(text).trimEnd().split('\n');
  return lines.slice(0, n).concat(lines.length > n ? ['…'] : []);
}

function describeError(error) {
  if (!error) return [];
  // The runner wraps what the test threw; the cause is the assertion or error itself.
  const thrown = error.cause ?? error;
  const text = thrown instanceof Error ? (thrown.stack ?? thrown.message) : String(thrown);
  // The runner's own frames say nothing about the test.
  const own = text.split('\n').filter((line) => !/^\s+at .*\(node:/.test(line) && !/^\s+at node:/.test(line));
  return firstLines(own.join('\n'), ERROR_LINES);
}

function seconds(ms) {
  return `${(ms / 1000).toFixed(1).padStart(7)} s`;
}

/**
 * The `count` files of the CPU log at `path` (test-batches.js appends each file's) that took the most CPU, with the
 * total of all, as lines to print; '' when none was kept. Three files run side by side, so the slowest by wall time
 * are not always the dearest, and the suite's time on a 2-core machine is its CPU.
 */
export function dearestFiles(path, count) {
  if (!path || !existsSync(path)) return '';
  const files = readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line));
  if (files.length === 0) return '';
  const total = files.reduce((sum, f) => sum + f.ms, 0);
  const dearest = [...files].sort((a, b) => b.ms - a.ms).slice(0, count);
  let out = `\nmost CPU: ${dearest.length} of ${files.length} files (CPU time of the test's own process, its threads included, not the processes it starts; ${seconds(total).trim()} in all):\n`;
  for (const f of dearest) out += `${seconds(f.ms)}  ${f.file}\n`;
  return out;
}

export default async function* summary(source) {
  const failures = [];
  const files = [];
  const stderr = new Map();
  // A test file runs as a suite named by its source inside a batch's process
  // (scripts/test-batches.js); its events name the batch's entry as their file.
  const isFileSuite = (data) => data.nesting === 0 && /\.test\.ts$/.test(data.name ?? '');
  for await (const event of source) {
    const data = event.data ?? {};
    if (event.type === 'test:stderr' && data.file) {
      const kept = stderr.get(data.file) ?? [];
      kept.push(...String(data.message).trimEnd().split('\n'));
      stderr.set(data.file, kept.slice(-STDERR_LINES));
    } else if (event.type === 'test:complete' && isFileSuite(data)) {
      files.push({ file: data.name, ms: data.details?.duration_ms ?? 0 });
    } else if (event.type === 'test:fail') {
      const error = data.details?.error;
      // A parent that failed only because a subtest did adds nothing to the subtest's own entry.
      if (error?.failureType === 'subtestsFailed') continue;
      // A suite that fails for itself: its file's import threw, it ran out of time, or the batch's process ended.
      const wholeFile = isFileSuite(data) || data.name === data.file;
      failures.push({
        file: isFileSuite(data) ? data.name : data.file,
        name: wholeFile ? '(the file itself)' : data.name,
        lines: [
          ...describeError(error),
          ...(wholeFile && stderr.has(data.file) ? ['stderr of its process:', ...stderr.get(data.file)] : []),
        ],
      });
    }
  }
  // A compiled test file is named by its source (scripts/compile-tests.js).
  const where = (file) => (file ? relative(process.cwd(), file).replace(/^\.test-build-[^/]+\/(.*)\.js$/, '$1.ts') : '(no file)');
  let out = '\n== test summary\n';
  if (failures.length === 0) out += 'no test failed\n';
  else {
    out += `${failures.length} failed:\n`;
    for (const f of failures) {
      out += `\n✖ ${where(f.file)} › ${f.name}\n`;
      for (const line of f.lines) out += `    ${line}\n`;
    }
  }
  const slowest = files.sort((a, b) => b.ms - a.ms).slice(0, SLOWEST);
  out += `\nslowest ${slowest.length} of ${files.length} files (wall time, files run side by side):\n`;
  for (const f of slowest) out += `${seconds(f.ms)}  ${where(f.file)}\n`;
  yield out + dearestFiles(process.env[CPU_LOG_VARIABLE], SLOWEST);
}
