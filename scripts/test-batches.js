// Groups the compiled test files into batches, each run by one process of
// node's test runner: a file's own process paid Node's start, its modules and
// a cold JIT before its first test, and Node 20's runner has no option to run
// several files in one process (docs/decisions/0063-test-files-batched-per-process.md).
// In a batch each file is a suite of its own named by its source path: its
// top-level hooks (before, after, beforeEach…) attach to that suite, not to
// the batch, and suites run one after the other. A file that observes or acts
// on its whole process says so in its first lines (OWN_PROCESS) and runs in a
// process of its own, as before. A file that spends most of its time waiting
// says so too (MOSTLY_WAITS): those files share a lane of their own beside
// the lanes of the files that work (scripts/run-tests.js).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * V8's baseline WebAssembly compiler only (Liftoff, never TurboFan), for the
 * test processes and the pagewatch processes they start (test/helpers/pagewatch-bin.ts):
 * a test uses each embedded store briefly, and optimising PGlite's hot
 * functions cost more CPU than it saved (docs/decisions/0081).
 */
export const WASM_BASELINE_ONLY = '--liftoff-only';

/** The marker, with the reason after it, of a file that needs a process of its own. */
export const OWN_PROCESS = '// test-process: own';
/**
 * The marker, with the reason after it, of a file whose time goes mostly to
 * waiting (deadlines it lets pass, pagewatch processes it starts, Chromium's
 * loads), not to its own process's CPU (docs/decisions/0092).
 */
export const MOSTLY_WAITS = '// test-lane: waits';
/** The environment variable naming the file each batch appends its files' CPU times to (batchEntry); unset: none kept. */
export const CPU_LOG_VARIABLE = 'PAGEWATCH_TEST_CPU_LOG';

/** How long one file of a batch may run; the runner's own --test-timeout bounds a batch as a whole. */
export const FILE_TIMEOUT_MS = 600_000;

/** Whether one of the first lines of the test file at `source` starts with `marker`. */
function marked(source, marker) {
  return readFileSync(source, 'utf8')
    .split('\n', 20)
    .some((line) => line.startsWith(marker));
}

/** Whether the test file at `source` asks for a process of its own. */
export const needsOwnProcess = (source) => marked(source, OWN_PROCESS);

/** Whether the test file at `source` says it mostly waits. */
export const mostlyWaits = (source) => marked(source, MOSTLY_WAITS);

/**
 * `files` dealt out in turn into `count` batches, so each batch mixes the
 * directories (browser files, store files, API files) and the batches take
 * about as long as each other.
 */
export function dealOut(files, count) {
  const batches = Array.from({ length: Math.min(count, files.length) }, () => []);
  files.forEach((file, i) => batches[i % batches.length].push(file));
  return batches;
}

/**
 * `files` ([source path, compiled path] pairs) dealt out into batches of about
 * `perBatch` files, files whose environment (`envOf(source)`) differs never in
 * one batch: a batch's process has one environment. [files, env] pairs.
 */
export function batchesByEnv(files, perBatch, envOf) {
  const groups = new Map();
  for (const file of files) {
    const env = envOf(file[0]);
    const key = JSON.stringify(env);
    if (!groups.has(key)) groups.set(key, { env, members: [] });
    groups.get(key).members.push(file);
  }
  return [...groups.values()].flatMap(({ env, members }) =>
    dealOut(members, Math.ceil(members.length / perBatch)).map((batch) => [batch, env]),
  );
}

/**
 * The batch files of a run, as [file name, files, env], named so that their
 * order is the order node's runner starts them in (it sorts them by name):
 * first the files that mostly wait (`waits`), all in one batch per
 * environment, which keeps the one process more busy for most of the run;
 * then each file that needs a process of its own (`alone`), while the other
 * processes start; then the rest (`shared`) in batches of about `perBatch`.
 * Files are [source path, compiled path] pairs; `envOf(source)` as in batchesByEnv.
 */
export function runOrder({ waits, alone, shared }, perBatch, envOf) {
  const entries = [
    ...batchesByEnv(waits, Math.max(waits.length, 1), envOf).map(([files, env]) => ['waits', files, env]),
    ...alone.map((file) => ['own-process', [file], envOf(file[0])]),
    ...batchesByEnv(shared, perBatch, envOf).map(([files, env]) => ['batch', files, env]),
  ];
  return entries.map(([kind, files, env], i) => [`${String(i + 1).padStart(3, '0')}-${kind}.js`, files, env]);
}

/**
 * Writes the entry file of a batch at `path`; `files` are [source path,
 * compiled path] pairs. `env` is set in the batch's process before its files
 * are imported (the runner's processes share one environment otherwise).
 */
export function writeBatch(path, files, env = {}) {
  mkdirSync(dirname(path), { recursive: true });
  const entries = files.map(([source, compiled]) => [source, pathToFileURL(compiled).href]);
  writeFileSync(path, batchEntry(entries, env));
  return path;
}

// Each file is imported from inside its suite's callback, and at once: what a
// module declares lands in the suite whose callback started its import (Node
// 20 finds a test's parent by the async context the import began in; an
// import begun outside the callback, or after awaiting a promise made outside
// it, put the file's tests and hooks at the batch's top level). The suites
// still run one after the other; a file's top-level await (a receiver it
// starts) runs when the batch starts.
// With CPU_LOG_VARIABLE set, each file's CPU time in its process (all its
// threads: stores, extraction; not the processes it starts) is appended
// there, from its suite's first hook to its last: the first is registered
// before the file's own hooks, the last after them, once its module has
// declared them. Wall times say little of a file's cost while three run
// side by side (test-summary-reporter.js prints the dearest).
function batchEntry(entries, env) {
  return `import { appendFileSync } from 'node:fs';
import { after, before, describe } from 'node:test';
Object.assign(process.env, ${JSON.stringify(env)});
const files = ${JSON.stringify(entries, null, 2)};
const cpuLog = process.env.${CPU_LOG_VARIABLE};
for (const [source, url] of files)
  describe(source, { timeout: ${FILE_TIMEOUT_MS} }, () => {
    if (!cpuLog) return import(url);
    let began;
    before(() => {
      began = process.cpuUsage();
    });
    return import(url).then(() =>
      after(() => {
        const { user, system } = process.cpuUsage(began);
        appendFileSync(cpuLog, JSON.stringify({ file: source, ms: (user + system) / 1000 }) + '\\n');
      }),
    );
  });
`;
}
