import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import semver from 'semver';

// What package.json promises a person installing pagewatch: the Node.js
// versions of `engines` run every package it ships, and every dependency it
// ships is used.

const ROOT = resolve(import.meta.dirname, '..', '..');

interface LockEntry {
  dev?: boolean;
  engines?: { node?: string };
}

const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  engines: { node: string };
  dependencies: Record<string, string>;
};
const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, LockEntry>;
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|js)$/.test(path) ? [path] : [];
  });
}

test('every installed production package runs on each Node.js version package.json engines accepts', () => {
  const promised = manifest.engines.node;
  const narrower = Object.entries(lock.packages)
    .filter(([path, entry]) => path !== '' && !entry.dev && entry.engines?.node)
    .filter(([, entry]) => !semver.subset(promised, entry.engines!.node!))
    .map(([path, entry]) => `${path} wants node ${entry.engines!.node}`);
  assert.deepEqual(narrower, [], `engines.node is ${promised}`);
});

test('every production dependency in package.json is imported by the shipped code', () => {
  const code = [...sourceFiles(join(ROOT, 'src')), ...sourceFiles(join(ROOT, 'bin'))].map((file) => readFileSync(file, 'utf8')).join('\n');
  const unused = Object.keys(manifest.dependencies).filter(
    (name) => !new RegExp(`from '${name}(/[^']*)?'|import\\('${name}(/[^']*)?'\\)`).test(code),
  );
  assert.deepEqual(unused, []);
});
