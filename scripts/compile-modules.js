// TypeScript modules compiled to JavaScript one module each by esbuild, for
// the build (src/ to dist/) and the test runs (src/ and test/ to a directory
// of the run's own) alike: what the suite runs is compiled as what ships.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { build } from 'esbuild';

const RELATIVE = /^\.{1,2}\//;

/**
 * Compiles `entries` one module each (every import left to the module it
 * names, a relative .ts import renamed to its .js, as tsc's
 * rewriteRelativeImportExtensions does) into `outdir`, laid out from
 * `outbase`; resolves to the modules outside `entries` they import.
 * esbuild compiles without reading the types (`npm run typecheck` checks
 * them): tsc's emit alone took seven times as long
 * (docs/decisions/0062-test-suite-compiled-once-per-run.md).
 */
export async function compileModules({ root, outbase, outdir, entries, tsconfig }) {
  const imported = new Set();
  await build({
    absWorkingDir: root,
    entryPoints: entries,
    outbase,
    outdir,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: true,
    // Stack traces need the lines only: each process parses the maps of every module it loads.
    sourcesContent: false,
    // As tsc emits them: a function's or class's name is what tests and logs read.
    keepNames: true,
    tsconfig,
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

/** Whether the file name is a TypeScript module (not a declaration file). */
export const isModule = (name) => name.endsWith('.ts') && !name.endsWith('.d.ts');
