import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
// @ts-expect-error the runner's scripts are plain JavaScript without types
import { compileTests } from '../../scripts/compile-tests.js';
// @ts-expect-error the runner's scripts are plain JavaScript without types
import { cachedSnapshot, snapshotKey } from '../../scripts/test-snapshots.js';
import { useTempDataDirs } from '../helpers/temp-dirs.ts';

// What a test run does before its first file (scripts/run-tests.js): compile
// the sources and tests once (scripts/compile-tests.js), and find or make the
// embedded stores' snapshots (scripts/test-snapshots.js).

const newDir = useTempDataDirs('pw-run-start-');

function write(root: string, path: string, content: string): void {
  mkdirSync(join(root, path, '..'), { recursive: true });
  writeFileSync(join(root, path), content);
}

/** A repository with what a snapshot is made from: sources, test helpers and a lock file. */
function repository(): string {
  const root = newDir();
  write(root, 'src/store/migrations/001_first.sql', 'CREATE TABLE a (id int);');
  write(root, 'test/helpers/store.ts', 'export const made = 1;');
  write(root, 'package-lock.json', '{}');
  return root;
}

/** A maker of snapshots that counts its calls and writes `status`'s snapshot. */
function maker(status = 0) {
  const made: string[] = [];
  return {
    made,
    make: async (path: string) => {
      made.push(path);
      if (status === 0) writeFileSync(path, 'snapshot');
      return status;
    },
  };
}

test('a snapshot is made once and used by the runs after while its inputs are unchanged', async () => {
  const root = repository();
  const dir = join(root, 'cache');
  const { made, make } = maker();
  const first = await cachedSnapshot(dir, 'migrated', snapshotKey(root), make);
  const second = await cachedSnapshot(dir, 'migrated', snapshotKey(root), make);
  assert.equal(made.length, 1);
  assert.equal(second, first);
  assert.ok(existsSync(first));
});

test('a change to a migration, a source, a test helper or the installed packages names another snapshot', () => {
  const root = repository();
  const keys = new Set([snapshotKey(root)]);
  for (const [path, content] of [
    ['src/store/migrations/001_first.sql', 'CREATE TABLE a (id bigint);'],
    ['src/store/migrations/002_second.sql', 'CREATE TABLE b (id int);'],
    ['src/store/open.ts', 'export const open = 1;'],
    ['test/helpers/store.ts', 'export const made = 2;'],
    ['package-lock.json', '{"lockfileVersion":3}'],
  ]) {
    write(root, path!, content!);
    keys.add(snapshotKey(root));
  }
  assert.equal(keys.size, 6);
});

test('a snapshot whose making failed is not kept: the next run makes it again', async () => {
  const root = repository();
  const dir = join(root, 'cache');
  assert.equal(await cachedSnapshot(dir, 'migrated', snapshotKey(root), maker(1).make), null);
  assert.deepEqual(readdirSync(dir), []);
  const { made, make } = maker();
  assert.ok(await cachedSnapshot(dir, 'migrated', snapshotKey(root), make));
  assert.equal(made.length, 1);
});

test('the three snapshots of a kind used last are kept, the others removed', async () => {
  const dir = join(newDir(), 'cache');
  const { make } = maker();
  const paths: string[] = [];
  const minutes = (n: number) => new Date(Date.UTC(2026, 10, 29, 12, n));
  for (const [i, key] of ['a', 'b', 'c', 'd'].entries()) paths.push(await cachedSnapshot(dir, 'migrated', key, make, minutes(i)));
  await cachedSnapshot(dir, 'populated', 'a', make, minutes(5));
  assert.deepEqual(
    paths.map((path) => existsSync(path)),
    [false, true, true, true],
  );
  assert.deepEqual(readdirSync(dir).sort(), ['migrated-b.tar', 'migrated-c.tar', 'migrated-d.tar', 'populated-a.tar']);
});

test('a snapshot left half-written by a stopped run is removed after an hour, not while a run may still write it', async () => {
  const dir = join(newDir(), 'cache');
  mkdirSync(dir, { recursive: true });
  const at = (minutes: number) => new Date(Date.UTC(2026, 10, 29, 12, minutes));
  for (const [name, minutes] of [
    ['migrated-a.tar.101.partial', 0],
    ['migrated-b.tar.102.partial', 30],
  ] as const) {
    writeFileSync(join(dir, name), 'half');
    utimesSync(join(dir, name), at(minutes), at(minutes));
  }
  await cachedSnapshot(dir, 'migrated', 'c', maker().make, at(61));
  assert.deepEqual(readdirSync(dir).sort(), ['migrated-b.tar.102.partial', 'migrated-c.tar']);
});

/** A repository to compile: its test build's settings, a module, and the extraction thread's entry, which imports it. */
function compilable(): string {
  const root = newDir();
  write(root, 'tsconfig.test-build.json', JSON.stringify({ compilerOptions: { target: 'ES2022' } }));
  write(root, 'src/named.ts', 'export class Named {}');
  write(
    root,
    'src/extraction/extraction-worker.ts',
    "import { Named } from '../named.ts';\nexport const runExtractionThread = (): string => Named.name;",
  );
  return root;
}

test('the compiled tests import each other by .js, and a module they import from outside src/ and test/ is compiled too', async () => {
  const root = compilable();
  write(root, 'packages/client/src/index.ts', "export { greet } from './greet.js';");
  write(root, 'packages/client/src/greet.ts', 'export const greet = (name: string): string => `hello ${name}`;');
  write(root, 'src/kinds.ts', "export type Kind = 'price';");
  write(
    root,
    'test/uses.ts',
    [
      "import type { Kind } from '../src/kinds.ts';",
      "import { Named } from '../src/named.ts';",
      "import { greet } from '../packages/client/src/index.ts';",
      "const kind: Kind = 'price';",
      'export const said = `${greet(kind)} ${Named.name}`;',
      "export const lazily = () => import('../src/named.ts');",
    ].join('\n'),
  );
  const out: string = await compileTests(root);
  const compiled = await import(pathToFileURL(join(out, 'test/uses.js')).href);
  assert.equal(compiled.said, 'hello price Named');
  assert.equal((await compiled.lazily()).Named.name, 'Named');
  assert.ok(existsSync(join(out, 'packages/client/src/greet.js')));
});

test("the extraction thread's entry is compiled as one module, as npm run build ships it", async () => {
  const root = compilable();
  write(root, 'test/none.ts', 'export {};');
  const out: string = await compileTests(root);
  const thread = join(out, 'src/extraction/extraction-worker.js');
  assert.doesNotMatch(readFileSync(thread, 'utf8'), /named\.js/, 'the module it imports is inside it');
  assert.equal((await import(pathToFileURL(thread).href)).runExtractionThread(), 'Named');
});
