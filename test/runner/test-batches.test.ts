import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
// @ts-expect-error the runner's scripts are plain JavaScript without types
import { batchesByEnv, dealOut, needsOwnProcess, writeBatch } from '../../scripts/test-batches.js';
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

test('a batch runs each file as a suite named by its source, its hooks around its own tests, one file after the other', () => {
  const dir = newDir();
  mkdirSync(dir, { recursive: true });
  const files = ['first', 'second', 'third'].map((name) => [`test/${name}.test.ts`, fileKeepingState(dir, name)]);
  const entry = writeBatch(join(dir, 'batch-1.js'), files);
  // NODE_TEST_CONTEXT would make the inner runner report to this file's runner instead of printing TAP.
  const { NODE_TEST_CONTEXT: _, ...env } = process.env;
  const run = spawnSync(process.execPath, ['--test', '--test-reporter=tap', entry], { encoding: 'utf8', env });
  assert.equal(run.status, 0, run.stdout + run.stderr);
  for (const name of ['first', 'second', 'third']) {
    assert.match(run.stdout, new RegExp(`^# Subtest: test/${name}\\.test\\.ts$`, 'm'));
    assert.match(run.stdout, new RegExp(`^ {4}ok \\d+ - ${name} sees its own before$`, 'm'), 'nested in its file');
  }
  assert.match(run.stdout, /^# pass 6$/m);
});

test("a batch's environment is set before its files are imported", () => {
  const dir = newDir();
  mkdirSync(dir, { recursive: true });
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
  const { NODE_TEST_CONTEXT: _, ...env } = process.env;
  const run = spawnSync(process.execPath, ['--test', '--test-reporter=tap', entry], { encoding: 'utf8', env });
  assert.equal(run.status, 0, run.stdout + run.stderr);
  assert.match(run.stdout, /^# pass 1$/m);
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
