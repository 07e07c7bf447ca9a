#!/usr/bin/env node
// `npm run build` (also npm ci's prepare step): compiles src/ to dist/ with
// tsc, so `npm start` runs JavaScript without a TypeScript loader, and copies
// the files the code reads next to itself (migrations, dashboard assets).
// An argument names another output directory (a test builds into its own).
import { cpSync, rmSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

const root = new URL('..', import.meta.url).pathname;
const dist = process.argv[2] ?? `${root}dist`;
// A clean build: nothing of a module since removed or renamed stays behind.
rmSync(dist, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const compiled = spawnSync(process.execPath, [tsc, '-p', `${root}tsconfig.build.json`, '--outDir', dist], { stdio: 'inherit' });
if (compiled.status !== 0) process.exit(compiled.status ?? 1);
cpSync(`${root}src`, dist, { recursive: true, filter: (path) => !path.endsWith('.ts') });
