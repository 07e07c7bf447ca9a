// Compiles src/ and test/ to JavaScript in a directory of the run's own
// (.test-build-*/, so runs side by side do not share one), laid out as the
// repository is, so each test file's process loads plain modules instead of
// sending every one through tsx's hooks: on Node 20 that was about half of a
// file's start (docs/decisions/0062-test-suite-compiled-once-per-run.md).
// Everything else a test reaches by a path next to itself is linked in: the
// TypeScript sources (child processes run them with tsx), fixtures, corpora,
// migrations, and the repository's other files (bin/, docs/, node_modules/…).
import { existsSync, mkdirSync, mkdtempSync, readdirSync, statSync, symlinkSync } from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';
import { stop } from 'esbuild';
import { bundleExtractionThread } from './bundle-threads.js';
import { compileModules, isModule } from './compile-modules.js';
import { filesUnder } from './files-under.js';

const COMPILED_DIRS = ['src', 'test'];
// Not linked: what is compiled and what no test reaches.
const NOT_LINKED = new Set([...COMPILED_DIRS, '.git', 'coverage']);

/** Whether `dir` holds modules to compile; installed packages are linked whole. */
function holdsTypeScript(dir) {
  if (basename(dir) === 'node_modules') return false;
  return readdirSync(dir).some((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? holdsTypeScript(path) : isModule(name);
  });
}

/** Links every file of `from` into `to` beside the compiled JavaScript; a directory without TypeScript as a whole. */
function linkBeside(from, to) {
  mkdirSync(to, { recursive: true });
  for (const name of readdirSync(from)) {
    const source = join(from, name);
    const target = join(to, name);
    if (statSync(source).isDirectory() && holdsTypeScript(source)) linkBeside(source, target);
    else if (!existsSync(target)) symlinkSync(source, target);
  }
}

/**
 * Compiles the repository at `root` into a new directory in it and resolves
 * to that directory: src/ and test/, and every module they import from
 * elsewhere (packages/client, scripts/), one module each (compile-modules.js).
 */
export async function compileTests(root) {
  const out = mkdtempSync(join(root, '.test-build-'));
  const tsconfig = join(root, 'tsconfig.test-build.json');
  const done = new Set();
  for (
    let next = COMPILED_DIRS.flatMap((dir) => filesUnder(join(root, dir)).filter((file) => isModule(basename(file))));
    next.length > 0;
  ) {
    next.forEach((module) => done.add(module));
    next = (await compileModules({ root, outbase: root, outdir: out, entries: next, tsconfig })).filter((module) => !done.has(module));
  }
  // As `npm run build` ships it: the extraction thread's code in one module.
  await bundleExtractionThread(join(root, 'src'), join(out, 'src'), tsconfig);
  // esbuild's service process would otherwise stay for the whole run.
  await stop();
  for (const dir of COMPILED_DIRS) linkBeside(join(root, dir), join(out, dir));
  mkdirSync(join(root, 'test-artifacts'), { recursive: true });
  for (const name of readdirSync(root)) {
    if (NOT_LINKED.has(name) || name.startsWith('.test-build-')) continue;
    // A directory the tests import TypeScript from (packages/client) was compiled too.
    if (existsSync(join(out, name))) linkBeside(join(root, name), join(out, name));
    else symlinkSync(join(root, name), join(out, name));
  }
  return out;
}

/** The compiled file of a test file named from `root`. */
export function compiledPath(root, out, file) {
  return join(out, relative(root, resolve(root, file))).replace(/\.ts$/, '.js');
}
