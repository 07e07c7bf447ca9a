import { readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

// Runs every bench/*.bench.ts in turn. Benchmarks measure against a baseline
// in the same run and never fail the build.
const dir = import.meta.dirname;
const files = readdirSync(dir).filter((f) => f.endsWith('.bench.ts')).sort();
if (files.length === 0) console.log('no benchmarks in bench/ yet');
for (const file of files) {
  console.log(`\n== ${file}`);
  spawnSync(process.execPath, ['--import', 'tsx', join(dir, file)], { stdio: 'inherit' });
}
