#!/usr/bin/env node
// `npm run build` (also npm ci's prepare step): compiles src/ to dist/ with
// tsc, so `npm start` runs JavaScript without a TypeScript loader, bundles the
// extraction thread's code into one module (bundle-threads.js), and copies
// the files the code reads next to itself (migrations, dashboard assets), and
// writes the template a new embedded store starts from.
// An argument names another output directory (a test builds into its own).
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { stop as stopEsbuild } from 'esbuild';
import { bundleExtractionThread } from './bundle-threads.js';

const root = new URL('..', import.meta.url).pathname;
const dist = resolve(process.argv[2] ?? `${root}dist`);
// A clean build: nothing of a module since removed or renamed stays behind.
rmSync(dist, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
// Emit only: the types are checked by `npm run typecheck` (which .ci/run runs
// before the suite); checking them again here was two thirds of every build.
const compiled = spawnSync(process.execPath, [tsc, '-p', `${root}tsconfig.build.json`, '--noCheck', '--outDir', dist], {
  stdio: 'inherit',
});
if (compiled.status !== 0) process.exit(compiled.status ?? 1);
cpSync(`${root}src`, dist, { recursive: true, filter: (path) => !path.endsWith('.ts') });
await bundleExtractionThread(`${root}src`, dist, `${root}tsconfig.build.json`);
await stopEsbuild();

// The template a new embedded store starts from (src/store/store-template.ts):
// a store created and migrated by the code just built.
const { openDatabase } = await import(`${dist}/store/open-database.js`);
const { STORE_TEMPLATE } = await import(`${dist}/store/store-template.js`);
const { PGlite } = await import('@electric-sql/pglite');
const scratch = mkdtempSync(join(tmpdir(), 'pagewatch-template-'));
try {
  const dataDir = join(scratch, 'data');
  await (await openDatabase({ databaseUrl: null, dataDir })).close();
  const pg = new PGlite(dataDir);
  await pg.waitReady;
  const dump = await pg.dumpDataDir('none');
  await pg.close();
  writeFileSync(STORE_TEMPLATE, new Uint8Array(await dump.arrayBuffer()));
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
