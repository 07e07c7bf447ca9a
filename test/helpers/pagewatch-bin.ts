import { runsFromSources } from '../../src/thread-entry.ts';
// @ts-expect-error the runner's scripts are plain JavaScript without types
import { WASM_BASELINE_ONLY } from '../../scripts/test-batches.js';

// The pagewatch command the tests start: from the run's compiled JavaScript
// when the test files run compiled (scripts/compile-tests.js compiles src/ and
// test/ together), else from the sources through tsx (bin/pagewatch-dev.js).
// A process started through tsx sends every module of itself and of its
// threads through tsx's hooks, most of its start's CPU
// (docs/decisions/0064-test-suite-pagewatch-processes-started-compiled.md).

const DEV_BIN = new URL('../../bin/pagewatch-dev.js', import.meta.url).pathname;
const COMPILED_MAIN = new URL('./pagewatch-main.js', import.meta.url).pathname;

/** The arguments of `node` that run `pagewatch <args>`, with the test processes' WebAssembly compiler setting. */
export function pagewatchArgs(args: string[]): string[] {
  return [WASM_BASELINE_ONLY, runsFromSources(import.meta.url) ? DEV_BIN : COMPILED_MAIN, ...args];
}
