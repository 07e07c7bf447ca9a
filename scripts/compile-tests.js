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
import { build, stop } from 'esbuild';
import { bundleExtractionThread } from './bundle-threads.js';
import { filesUnder } from './files-under.js';

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

const RELATIVE = /^\.{1,2}\//;

/**
 * Compiles `entries` one module each (every import left to the module it
 * names, a relative .ts import renamed to its .js, as tsc's
 * rewriteRelativeImportExtensions does) into `out`, laid out from `root`;
 * resolves to the modules outside `entries` they import.
 */
async function compileModules(root, out, entries) {
  const imported = new Set();
  await build({
    absWorkingDir: root,
    entryPoints: entries,
    outbase: root,
    outdir: out,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: true,
    // Stack traces need the lines only: each process parses the maps of every module it loads.
    sourcesContent: false,
    // As tsc emits them: a function's or class's name is what tests and logs read.
    keepNames: true,
    tsconfig: join(root, 'tsconfig.test-build.json'),
    logLevel: 'error',
    plugins: [
      {
        name: 'each-module-alone',
        setup(compiler) {
          compiler.onResolve({ filter: /.*/ }, ({ path, resolveDir, kind }) => {
            if (kind === 'entry-point') return undefined;
            if (!RELATIVE.test(path)) return { path, external: true };
            const target = resolve(resolveDir, path);
            if (target.endsWith('.ts')) {
              imported.add(target);
              return { path: path.replace(/\.ts$/, '.js'), external: true };
            }
            // packages/client names its modules by their .js, as TypeScript lets a package do.
            const source = target.replace(/\.js$/, '.ts');
            if (target.endsWith('.js') && !existsSync(target) && existsSync(source)) imported.add(source);
            return { path, external: true };
          });
        },
      },
    ],
  });
  const compiled = new Set(entries);
  return [...imported].filter((module) => !compiled.has(module));
}

/**
 * Compiles the repository at `root` into a new directory in it and resolves
 * to that directory: src/ and test/, and every module they import from
 * elsewhere (packages/client, scripts/). esbuild compiles without reading the
 * types (`npm run typecheck` checks them): tsc's emit alone took seven times
 * as long, before any file of a run started.
 */
export async function compileTests(root) {
  const out = mkdtempSync(join(root, '.test-build-'));
  const done = new Set();
  for (
    let next = COMPILED_DIRS.flatMap((dir) => filesUnder(join(root, dir)).filter((file) => isModule(basename(file))));
    next.length > 0;
  ) {
    next.forEach((module) => done.add(module));
    next = (await compileModules(root, out, next)).filter((module) => !done.has(module));
  }
  // As `npm run build` ships it: the extraction thread's code in one module.
  await bundleExtractionThread(join(root, 'src'), join(out, 'src'), join(root, 'tsconfig.test-build.json'));
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
