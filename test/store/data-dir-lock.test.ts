import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { DataDirLockedError, lockDataDir } from '../../src/store/data-dir-lock.ts';
import { useTempDataDirs } from '../helpers/temp-dirs.ts';

const freshDir = useTempDataDirs('pw-lock-');

test('a second opener of a locked data directory is refused with a clear message', () => {
  const dir = freshDir();
  const lock = lockDataDir(dir);
  assert.throws(
    () => lockDataDir(dir),
    (err: Error) => err instanceof DataDirLockedError && err.message.includes('in use'),
  );
  lock.release();
});

test('releasing the lock lets the next process open the directory', () => {
  const dir = freshDir();
  lockDataDir(dir).release();
  assert.ok(!existsSync(`${dir}.lock`));
  lockDataDir(dir).release();
});

test('a lock left by a process that died is taken over', () => {
  const dir = freshDir();
  writeFileSync(`${dir}.lock`, '999999999');
  const lock = lockDataDir(dir);
  lock.release();
});
