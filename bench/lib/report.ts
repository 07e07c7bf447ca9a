import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

// Every benchmark prints its tables and, when run by bench/index.ts, also
// leaves its section of BENCHMARKS.md in BENCH_RESULTS_DIR; index.ts joins the
// sections in file order, so a benchmark that crashed simply has no section.

export type Cell = string | number | null;

export function fmt(value: number | null, digits = 1): string {
  if (value === null || !Number.isFinite(value)) return 'n/a';
  return value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

/** `value / baseline` as "0.42×", or n/a when either is missing. */
export function ratio(value: number | null, baseline: number | null): string {
  if (value === null || baseline === null || baseline === 0) return 'n/a';
  return `${fmt(value / baseline, 2)}×`;
}

export function mib(bytes: number | null): string {
  return bytes === null ? 'n/a' : `${fmt(bytes / 1048576, 1)} MiB`;
}

export function table(headers: string[], rows: Cell[][]): string {
  const line = (cells: Cell[]) => `| ${cells.map((c) => (c === null ? 'n/a' : String(c))).join(' | ')} |`;
  return [line(headers), line(headers.map(() => '---')), ...rows.map(line)].join('\n');
}

/** Prints a benchmark's section and hands it to bench/index.ts. */
export function publish(file: string, markdown: string): void {
  console.log(`\n${markdown}\n`);
  const dir = process.env.BENCH_RESULTS_DIR;
  if (dir) writeFileSync(join(dir, `${file}.md`), `${markdown.trim()}\n`);
}
