#!/usr/bin/env node
// Runs every test/**/*.test.ts file with node's own test runner, compiled to
// JavaScript once per run (scripts/compile-tests.js), several files to a
// process (scripts/test-batches.js).
// Extra arguments narrow the run to files whose path contains one of them.
import { rmSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { compiledPath, compileTests } from './compile-tests.js';
import { filesUnder } from './files-under.js';
import { storeTestFiles } from './store-tests.js';
import { CPU_LOG_VARIABLE, mostlyWaits, needsOwnProcess, runOrder, WASM_BASELINE_ONLY, writeBatch } from './test-batches.js';
import { cachedSnapshot, snapshotKey } from './test-snapshots.js';

const filters = process.argv.slice(2);
// Test processes at once (PAGEWATCH_TEST_PROCESSES, default 3): with two, a
// quiet 2-core machine idled a quarter of the time, while files waited on
// Chromium, child processes and the stores' threads (docs/decisions/0070).
// The files that mostly wait run in one more process beside these
// (docs/decisions/0092).
const PROCESSES = Number(process.env.PAGEWATCH_TEST_PROCESSES ?? 3);
if (!Number.isInteger(PROCESSES) || PROCESSES < 1) {
  console.error(`PAGEWATCH_TEST_PROCESSES must be a whole number of processes, at least 1: ${process.env.PAGEWATCH_TEST_PROCESSES}`);
  process.exit(1);
}
const matching = filesUnder('test')
  .filter((f) => f.endsWith('.test.ts'))
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .sort();
// On PostgreSQL only the files that open a store run (scripts/store-tests.js).
const files = process.env.TEST_DATABASE_URL ? storeTestFiles(resolve(import.meta.dirname, '..'), matching) : matching;
if (files.length < matching.length) {
  console.error(
    `TEST_DATABASE_URL is set: ${files.length} of ${matching.length} files open a store and run; the others do not depend on it`,
  );
}
if (matching.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
if (files.length === 0) process.exit(0);
// The files run compiled (scripts/compile-tests.js), all but those that read
// the TypeScript sources themselves (the architecture tests): they run
// through tsx, before the others (the CI log's tail is the last summary).
const root = resolve(import.meta.dirname, '..');
const readsSources = (file) => file.startsWith(join('test', 'architecture'));
const compiledFiles = files.filter((f) => !readsSources(f));
const sourceFiles = files.filter(readsSources);
const out = compiledFiles.length > 0 ? await compileTests(root) : null;
const stop = (status) => {
  if (out) rmSync(out, { recursive: true, force: true });
  process.exit(status);
};

const env = { ...process.env };
/** Runs node with `args` and the run's environment, output shown as it comes; resolves to its exit status. */
async function runNode(args) {
  const child = spawn(process.execPath, args, { stdio: 'inherit', env });
  const [status] = await once(child, 'exit');
  return status ?? 1;
}

// One embedded store is created and migrated, and kept for the runs after
// while what makes it is unchanged (scripts/test-snapshots.js); each file's
// embedded stores start from it (test/helpers/migrated-snapshot.ts). Also on
// PostgreSQL: the embedded store's own tests run there too. On the embedded
// store, beside it, one created and not migrated: the migration tests' stores
// with no schema start from it, not from initdb.
const snapshots = join(root, 'node_modules', '.cache', 'pagewatch-test-snapshots');
const inputs = snapshotKey(root);
const snapshot = (kind, script, ...args) =>
  cachedSnapshot(snapshots, kind, inputs, (path) => runNode(['--import', 'tsx', script, path, ...args]));
const [migrated, unmigrated] = await Promise.all([
  snapshot('migrated', 'test/helpers/pglite-snapshot.ts'),
  env.TEST_DATABASE_URL ? '' : snapshot('unmigrated', 'test/helpers/pglite-snapshot.ts', 'unmigrated'),
]);
if (!migrated || unmigrated === null) stop(1);
env.PAGEWATCH_TEST_PGLITE_SNAPSHOT = migrated;
env.PAGEWATCH_TEST_UNMIGRATED_SNAPSHOT = unmigrated;
// PAGEWATCH_TEST_MOVED_STORE (with TEST_DATABASE_URL): the API files' test
// schemas are filled by moving one populated embedded store into each, made
// once (test/helpers/populated-snapshot.ts, test-database.ts; issue #43); the
// other files' schemas by the migrations, as without it (docs/decisions/0076).
let movedStoreEnv = null;
if (env.PAGEWATCH_TEST_MOVED_STORE) {
  if (!env.TEST_DATABASE_URL) {
    console.error('PAGEWATCH_TEST_MOVED_STORE moves a store into PostgreSQL: set TEST_DATABASE_URL too');
    stop(1);
  }
  const populated = await snapshot('populated', 'test/helpers/populated-snapshot.ts');
  if (!populated) stop(1);
  movedStoreEnv = { PAGEWATCH_TEST_POPULATED_SNAPSHOT: populated };
}
const onMovedStore = (file) => movedStoreEnv !== null && file.startsWith(join('test', 'api') + sep);
// TAP on stdout as always; after it, on stderr, the failed tests and the slowest files.
const reporters = [
  '--test-reporter=tap',
  '--test-reporter-destination=stdout',
  '--test-reporter=./scripts/test-summary-reporter.js',
  '--test-reporter-destination=stderr',
];
// Files per process: fewer processes start fewer Nodes and use their test
// stores again more often, more keep the slots busy to the end of the run
// (docs/decisions/0063, 0083).
const FILES_PER_BATCH = 20;
// node 20 bounds each file as a whole by --test-timeout too, not only each
// test; a batch bounds each of its files by FILE_TIMEOUT_MS (test-batches.js),
// and a batch of files on a busy machine (or beside the other store's suite)
// may take many minutes without any test hanging.
const runFiles = (loader, list, timeoutMs, processes = PROCESSES) =>
  runNode([
    ...loader,
    WASM_BASELINE_ONLY,
    '--test',
    `--test-concurrency=${processes}`,
    `--test-timeout=${timeoutMs}`,
    ...reporters,
    ...list,
  ]);
const statuses = [sourceFiles.length > 0 ? await runFiles(['--import', 'tsx'], sourceFiles, 600_000) : 0];
if (out) {
  const named = compiledFiles.map((f) => [f, compiledPath(root, out, f)]);
  const ownProcess = new Set(compiledFiles.filter(needsOwnProcess));
  const waiting = new Set(compiledFiles.filter((f) => !ownProcess.has(f) && mostlyWaits(f)));
  const alone = named.filter(([f]) => ownProcess.has(f));
  const waits = named.filter(([f]) => waiting.has(f));
  const shared = named.filter(([f]) => !ownProcess.has(f) && !waiting.has(f));
  const dir = join(out, 'test-batches');
  const storeEnv = (file) => (onMovedStore(file) ? movedStoreEnv : {});
  const batches = runOrder({ waits, alone, shared }, FILES_PER_BATCH, storeEnv).map(([name, files, env]) =>
    writeBatch(join(dir, name), files, env),
  );
  env[CPU_LOG_VARIABLE] = join(out, 'test-cpu.jsonl');
  statuses.push(await runFiles(['--enable-source-maps'], batches, 3_600_000, PROCESSES + (waits.length > 0 ? 1 : 0)));
}
stop(statuses.find((s) => s !== 0) ?? 0);
