// The files that cost their test process the most CPU, from the times each
// batch appends (test-batches.js, CPU_LOG_VARIABLE): three files run side by
// side, so the slowest by wall time (test-summary-reporter.js) are not
// always the dearest, and the suite's time on a 2-core machine is its CPU.
import { existsSync, readFileSync } from 'node:fs';

const seconds = (ms) => `${(ms / 1000).toFixed(1).padStart(7)} s`;

/** The `count` files of the log at `path` that took the most CPU, with the total of all, as lines to print; '' when none was kept. */
export function dearestFiles(path, count) {
  if (!existsSync(path)) return '';
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
