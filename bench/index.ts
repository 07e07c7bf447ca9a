import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';

// Runs every bench/*.bench.ts in turn, then writes BENCHMARKS.md from the
// sections they leave behind (bench/lib/report.ts). Benchmarks measure against
// a baseline in the same run and never fail the build: a benchmark that fails
// is reported as such and the others still run.

const dir = import.meta.dirname;
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts'))
  .sort();
// The pagewatch processes the benchmarks start run the compiled JavaScript (bin/pagewatch.js), built from this checkout first.
const built = spawnSync(process.execPath, [join(dir, '..', 'scripts', 'build.js')], { stdio: 'inherit' });
if (built.status !== 0) throw new Error('npm run build failed');
const results = mkdtempSync(join(tmpdir(), 'pagewatch-bench-results-'));
const outcomes: string[] = [];
const started = Date.now();
const loadBefore = loadavg()[0]!;
for (const file of files) {
  console.log(`\n== ${file}`);
  const t0 = Date.now();
  const run = spawnSync(process.execPath, ['--import', 'tsx', join(dir, file)], {
    stdio: 'inherit',
    env: { ...process.env, BENCH_RESULTS_DIR: results },
  });
  outcomes.push(
    `| ${file} | ${run.status === 0 ? 'ok' : `failed (exit ${run.status ?? run.signal})`} | ${Math.round((Date.now() - t0) / 1000)} s |`,
  );
}

const shell = (command: string, args: string[]) => execFileSync(command, args, { encoding: 'utf8' }).trim();
const memory = shell('free', ['-m'])
  .split('\n')
  .find((line) => line.startsWith('Mem:'))
  ?.split(/\s+/)[1];
const section = (name: string) => {
  const path = join(results, `${name}.md`);
  return existsSync(path)
    ? readFileSync(path, 'utf8')
    : `## ${name}\n\nNo figures: the benchmark failed in this run (see the table of runs).\n`;
};

const markdown = `# Benchmarks

Written by \`npm run bench\` on ${new Date().toISOString().slice(0, 10)}; do not edit by hand (the findings are decision records in docs/decisions/, indexed in bench/findings.md).

Machine: ${shell('nproc', [])} CPUs (${cpus()[0]?.model ?? 'unknown'}), ${memory} MiB memory, Node ${process.version}, ${shell('uname', ['-sr'])}.

**Read the ratios, not the absolute figures.** Each figure is measured together with its baseline in the same run,
on the same machine, one after the other. This machine is small (2 cores) and was shared: other engineers' test
suites may run at the same time (1-minute load average ${loadBefore.toFixed(1)} at the start of this run and
${loadavg()[0]!.toFixed(1)} at its end), which lowers and scatters every absolute figure. PostgreSQL is the local server at \`BENCH_DATABASE_URL\` (default \`postgres://postgres@127.0.0.1:5432/test\`),
a fresh schema per run, dropped afterwards; PGlite runs in a fresh temporary data directory. All traffic is loopback.

Re-run everything: \`npm run bench\` (about ${Math.max(1, Math.round((Date.now() - started) / 60_000))} minutes here). Each benchmark alone:
\`node bin/run-ts.js bench/<name>.bench.ts\`; the parameters are environment variables listed in each section and at the
top of each script.

| benchmark | result | time |
| --- | --- | --- |
${outcomes.join('\n')}

${['api', 'html-checks', 'scale', 'browser-checks', 'browser-steps', 'scale-out', 'store-growth', 'simulated-day', 'backup', 'footprint'].map(section).join('\n')}
${readFileSync(join(dir, 'findings.md'), 'utf8').replaceAll('](../docs/', '](docs/')}`;

writeFileSync(join(dir, '..', 'BENCHMARKS.md'), markdown);
rmSync(results, { recursive: true, force: true });
console.log('\nwrote BENCHMARKS.md');
