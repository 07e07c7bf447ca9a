import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
// @ts-expect-error the runner's scripts are plain JavaScript without types
import { batchesByEnv, CPU_LOG_VARIABLE, dealOut, mostlyWaits, needsOwnProcess, runOrder, writeBatch } from '../../scripts/test-batches.js';
// @ts-expect-error the runner's scripts are plain JavaScript without types
import { dearestFiles } from '../../scripts/test-summary-reporter.js';
// @ts-expect-error the runner's scripts are plain JavaScript without types
import { storeTestFiles } from '../../scripts/store-tests.js';
import { useTempDataDirs } from '../helpers/temp-dirs.ts';

// The runner's batches (scripts/test-batches.js): several files in one
// process, each a suite of its own whose hooks run around its own tests only.

const root = fileURLToPath(new URL('../../', import.meta.url));
const newDir = useTempDataDirs('pw-batch-');

/** A test file whose `before` sets its module's state, which each of its tests then reads. */
function fileKeepingState(dir: string, name: string): string {
  const path = join(dir, `${name}.test.mjs`);
  writeFileSync(
    path,
    `import { after, before, test } from 'node:test';
let state = 'unset';
before(() => { state = ${JSON.stringify(name)}; globalThis.running = ${JSON.stringify(name)}; });
after(() => { globalThis.running = null; state = 'over'; });
test('${name} sees its own before', async () => {
  await new Promise((resolve) => setTimeout(resolve, 20));
  if (state !== ${JSON.stringify(name)}) throw new Error('state ' + state);
  if (globalThis.running !== ${JSON.stringify(name)}) throw new Error('another file runs: ' + globalThis.running);
});
test('${name} is still alone', () => {
  if (globalThis.running !== ${JSON.stringify(name)}) throw new Error('another file runs: ' + globalThis.running);
});
`,
  );
  return path;
}

/**
 * The environment of a batch run by a test: NODE_TEST_CONTEXT would make its runner report to this file's runner
 * instead of printing TAP, and the suite's CPU log is not its to write to.
 */
function innerEnv(cpuLog?: string): NodeJS.ProcessEnv {
  const { NODE_TEST_CONTEXT: _, [CPU_LOG_VARIABLE]: __, ...env } = process.env;
  return cpuLog ? { ...env, [CPU_LOG_VARIABLE]: cpuLog } : env;
}

/** Runs the batch at `entry` with node's runner (its CPU log at `cpuLog`, if given), which must pass; its TAP. */
function runBatch(entry: string, cpuLog?: string): string {
  const run = spawnSync(process.execPath, ['--test', '--test-reporter=tap', entry], { encoding: 'utf8', env: innerEnv(cpuLog) });
  assert.equal(run.status, 0, run.stdout + run.stderr);
  return run.stdout;
}

/** A fresh directory for a test's files. */
function newBatchDir(): string {
  const dir = newDir();
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** A test file that spends `ms` of its process's CPU in its own `before` hook and as much again in its `after`. */
function fileSpendingCpu(dir: string, name: string, ms: number): string {
  const path = join(dir, `${name}.test.mjs`);
  writeFileSync(
    path,
    `import { after, before, test } from 'node:test';
const spend = () => { const from = process.cpuUsage(); for (;;) { const { user, system } = process.cpuUsage(from); if (user + system >= ${ms * 1000}) return; } };
before(spend);
after(spend);
test('${name} runs', () => {});
`,
  );
  return path;
}

test('a batch runs each file as a suite named by its source, its hooks around its own tests, one file after the other', () => {
  const dir = newBatchDir();
  const files = ['first', 'second', 'third'].map((name) => [`test/${name}.test.ts`, fileKeepingState(dir, name)]);
  const entry = writeBatch(join(dir, 'batch-1.js'), files);
  const tap = runBatch(entry);
  for (const name of ['first', 'second', 'third']) {
    assert.match(tap, new RegExp(`^# Subtest: test/${name}\\.test\\.ts$`, 'm'));
    assert.match(tap, new RegExp(`^ {4}ok \\d+ - ${name} sees its own before$`, 'm'), 'nested in its file');
  }
  assert.match(tap, /^# pass 6$/m);
});

test("a batch's environment is set before its files are imported", () => {
  const dir = newBatchDir();
  const file = join(dir, 'reads-env.test.mjs');
  writeFileSync(
    file,
    `import { test } from 'node:test';
const atImport = process.env.PAGEWATCH_BATCH_PROBE;
test('reads the batch environment at import', () => {
  if (atImport !== 'set by the batch') throw new Error('at import: ' + atImport);
});
`,
  );
  const entry = writeBatch(join(dir, 'batch-1.js'), [['test/reads-env.test.ts', file]], { PAGEWATCH_BATCH_PROBE: 'set by the batch' });
  assert.match(runBatch(entry), /^# pass 1$/m);
});

test('files are dealt out in turn, so each batch mixes the directories', () => {
  assert.deepEqual(dealOut(['a1', 'a2', 'b1', 'b2', 'c1'], 2), [
    ['a1', 'b1', 'c1'],
    ['a2', 'b2'],
  ]);
  assert.deepEqual(dealOut(['a1'], 3), [['a1']]);
});

test("files of another environment are batched apart, each batch with its files' environment", () => {
  const moved = { PAGEWATCH_TEST_POPULATED_SNAPSHOT: '/populated' };
  const files = ['test/api/a', 'test/api/b', 'test/api/c', 'test/store/x', 'test/web/y'].map((f) => [f, `${f}.js`]);
  const batches = batchesByEnv(files, 2, (source: string) => (source.startsWith('test/api/') ? moved : {})) as [string[][], object][];
  assert.deepEqual(
    batches.map(([batch, env]) => [batch.map(([source]) => source), env]),
    [
      [['test/api/a', 'test/api/c'], moved],
      [['test/api/b'], moved],
      [['test/store/x', 'test/web/y'], {}],
    ],
  );
});

test('a file that watches its whole process asks for one of its own in its first lines', () => {
  assert.equal(needsOwnProcess(join(root, 'test/fetch/loader/browser-limits.test.ts')), true);
  assert.equal(needsOwnProcess(join(root, 'test/api/monitors.test.ts')), false);
});

test('a file that mostly waits says so in its first lines', () => {
  assert.equal(mostlyWaits(join(root, 'test/api/browser-load-incomplete.test.ts')), true);
  assert.equal(mostlyWaits(join(root, 'test/api/monitors.test.ts')), false);
});

test('batches are named in the order they start: the waiting files in one batch per environment, then each file of its own process, then the rest', () => {
  const moved = { PAGEWATCH_TEST_POPULATED_SNAPSHOT: '/populated' };
  const pair = (source: string) => [source, `${source}.js`];
  const envOf = (source: string) => (source.startsWith('test/api/') ? moved : {});
  const order = runOrder(
    {
      waits: ['test/api/w1', 'test/cli/w2', 'test/cli/w3'].map(pair),
      alone: ['test/fetch/own'].map(pair),
      shared: ['test/a', 'test/b', 'test/c'].map(pair),
    },
    2,
    envOf,
  ) as [string, string[][], object][];
  assert.deepEqual(
    order.map(([name, files, env]) => [name, files.map(([source]) => source), env]),
    [
      ['001-waits.js', ['test/api/w1'], moved],
      ['002-waits.js', ['test/cli/w2', 'test/cli/w3'], {}],
      ['003-own-process.js', ['test/fetch/own'], {}],
      ['004-batch.js', ['test/a', 'test/c'], {}],
      ['005-batch.js', ['test/b'], {}],
    ],
  );
  const names = order.map(([name]) => name);
  assert.deepEqual([...names].sort(), names, "node's runner sorts the files it is given");
});

test('on PostgreSQL the files that reach TEST_DATABASE_URL through their imports run, the others not', () => {
  const files = [
    'test/api/monitors.test.ts',
    'test/scale-out/manual-first-capture.test.ts',
    'test/domain/noise.test.ts',
    'test/fetch/ssrf/policy.test.ts',
    // pagewatch processes on embedded stores only
    'test/cli/compiled-start.test.ts',
    'test/scale-out/serve-crash.test.ts',
    // names the variable in a comment only
    'test/store/pglite-memory.test.ts',
  ];
  assert.deepEqual(storeTestFiles(root, files), ['test/api/monitors.test.ts', 'test/scale-out/manual-first-capture.test.ts']);
});

test('the runner refuses a number of test processes that is not a whole number of at least one, before it runs anything', () => {
  for (const processes of ['0', 'three', '1.5']) {
    const run = spawnSync(process.execPath, [join(root, 'scripts/run-tests.js'), 'test/config.test.ts'], {
      cwd: root,
      env: { ...process.env, PAGEWATCH_TEST_PROCESSES: processes },
      encoding: 'utf8',
    });
    assert.equal(run.status, 1, run.stderr);
    assert.match(run.stderr, new RegExp(`PAGEWATCH_TEST_PROCESSES must be a whole number of processes, at least 1: ${processes}`));
    assert.doesNotMatch(run.stdout, /^# tests/m, 'no test ran');
  }
});

test("a batch records each file's CPU time in its process, from before the file's own first hook to after its last", () => {
  const dir = newBatchDir();
  const cpuLog = join(dir, 'cpu.jsonl');
  const files = [
    ['test/busy.test.ts', fileSpendingCpu(dir, 'busy', 150)],
    ['test/idle.test.ts', fileSpendingCpu(dir, 'idle', 0)],
  ];
  const entry = writeBatch(join(dir, 'batch-1.js'), files);
  runBatch(entry, cpuLog);
  const kept = readFileSync(cpuLog, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { file: string; ms: number });
  assert.deepEqual(
    kept.map((f) => f.file),
    ['test/busy.test.ts', 'test/idle.test.ts'],
  );
  // both of busy's hooks counted (150 ms each), and none of its time in idle's
  assert.ok(kept[0]!.ms >= 300, `busy: ${kept[0]!.ms} ms`);
  assert.ok(kept[1]!.ms < 300, `idle: ${kept[1]!.ms} ms`);
});

test('the dearest files are printed dearest first, with the CPU time of all', () => {
  const dir = newBatchDir();
  const log = join(dir, 'cpu.jsonl');
  writeFileSync(
    log,
    ['a', 'b', 'c'].map((file, i) => JSON.stringify({ file: `test/${file}.test.ts`, ms: [1500, 9000, 4000][i] })).join('\n') + '\n',
  );
  const printed = dearestFiles(log, 2) as string;
  assert.match(printed, /most CPU: 2 of 3 files \(.*14\.5 s in all\)/);
  assert.deepEqual(
    printed
      .trim()
      .split('\n')
      .slice(1)
      .map((line) => line.trim()),
    ['9.0 s  test/b.test.ts', '4.0 s  test/c.test.ts'],
  );
  assert.equal(dearestFiles(join(dir, 'none.jsonl'), 2), '', 'nothing kept, nothing printed');
});
