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
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

const COMPILED_DIRS = ['src', 'test'];
// Not linked: what is compiled and what no test reaches.
const NOT_LINKED = new Set([...COMPILED_DIRS, '.git', 'coverage']);

const isModule = (name) => name.endsWith('.ts') && !name.endsWith('.d.ts');

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

/** Compiles the repository at `root` into a new directory in it and returns that directory. */
export function compileTests(root) {
  const out = mkdtempSync(join(root, '.test-build-'));
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  // Emit only, as `npm run build` does: `npm run typecheck` checks the types.
  const compiled = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.test-build.json'), '--noCheck', '--outDir', out], {
    stdio: 'inherit',
  });
  if (compiled.status !== 0) throw new Error(`tsc could not compile the tests (exit ${compiled.status})`);
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
