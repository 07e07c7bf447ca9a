// The extraction thread's code as one module (`npm run build` for dist/, and
// the test runs' compiled copy): a new thread loads one file instead of
// resolving, reading and compiling its ~180 modules (htmlparser2, css-select,
// xpath, xmldom, the extraction rules…) one by one. Threads start on first use
// and stop when idle, so that start is paid again after every quiet minute
// (docs/decisions/0074-extraction-thread-loads-one-bundled-module.md). Only the
// thread loads this file (extraction-pool.ts starts it by name), so its
// modules are never a second copy beside the process's own.
import { join } from 'node:path';
import { build } from 'esbuild';

/** The thread's entry, from the source directory. */
const ENTRY = 'extraction/extraction-worker';
/** Loaded on the first PDF only, and large: left to Node to load then (domain/extract/pdf-text.ts). */
const LOADED_LATER = ['pdfjs-dist', 'pdfjs-dist/*'];

/**
 * Writes the extraction thread's entry from `srcDir` (the TypeScript sources)
 * bundled to `outDir`'s matching `.js` (replacing the module compiled there),
 * with its source map.
 */
export async function bundleExtractionThread(srcDir, outDir, tsconfig) {
  await build({
    entryPoints: [join(srcDir, `${ENTRY}.ts`)],
    outfile: join(outDir, `${ENTRY}.js`),
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external: LOADED_LATER,
    sourcemap: true,
    sourcesContent: false,
    keepNames: true,
    tsconfig,
    logLevel: 'error',
  });
}
