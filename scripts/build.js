#!/usr/bin/env node
// `npm run build` (also npm ci's prepare step): compiles src/ to dist/, one
// module each, by esbuild as the test runs compile it (compile-modules.js),
// so `npm start` runs JavaScript without a TypeScript loader; bundles the
// extraction thread's code into one module (bundle-threads.js), copies the
// files the code reads next to itself (migrations, dashboard assets), and
// writes the template a new embedded store starts from.
// An argument names another output directory (a test builds into its own).
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { stop as stopEsbuild } from 'esbuild';
import { bundleExtractionThread } from './bundle-threads.js';
import { compileModules, isModule } from './compile-modules.js';
import { filesUnder } from './files-under.js';

const root = new URL('..', import.meta.url).pathname;
const src = join(root, 'src');
const dist = resolve(process.argv[2] ?? `${root}dist`);
const tsconfig = join(root, 'tsconfig.json');
// A clean build: nothing of a module since removed or renamed stays behind.
rmSync(dist, { recursive: true, force: true });
// Types are checked by `npm run typecheck` (which .ci/run runs before the suite), not here.
const entries = filesUnder(src).filter((file) => isModule(basename(file)));
const outside = await compileModules({ root, outbase: src, outdir: dist, entries, tsconfig });
if (outside.length > 0) {
  console.error(`src/ imports TypeScript from outside it, which dist/ would not hold: ${outside.join(', ')}`);
  process.exit(1);
}
cpSync(src, dist, { recursive: true, filter: (path) => !path.endsWith('.ts') });
await bundleExtractionThread(src, dist, tsconfig);
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
