// The embedded stores' snapshots a test run starts from (scripts/run-tests.js)
// are kept between runs, named by a hash of everything that makes them: the
// sources (migrations, the store's code), the test helpers that fill them, the
// installed packages and Node's version. Making the migrated one took about
// eleven seconds before any file of a run started, however few files ran.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync } from 'node:fs';
import { join, relative } from 'node:path';
import { filesUnder } from './files-under.js';

/** What a snapshot is made from, relative to the repository. */
const INPUTS = ['src', join('test', 'helpers'), 'package-lock.json'];
/** Snapshots of each kind kept: the newest, by when a run last used them. */
const KEPT = 3;
/** A snapshot still being written this long after it began was left by a run that was stopped. */
const ABANDONED_MS = 3_600_000;

/** The hash of the inputs of the repository at `root`, as they are now. */
export function snapshotKey(root) {
  const hash = createHash('sha256').update(process.version);
  for (const file of INPUTS.flatMap((input) => filesUnder(join(root, input)))) {
    hash.update(`\0${relative(root, file)}\0`).update(readFileSync(file));
  }
  return hash.digest('hex').slice(0, 16);
}

/**
 * The path of the snapshot `kind` for `key` in `dir`, made first by
 * `make(path)` (resolving to its exit status) when no run has made it yet.
 * Resolves to null when making it failed. A snapshot is written under another
 * name and renamed, so a run beside never reads half of one. `now` is when it
 * is used, by which the snapshots kept are chosen.
 */
export async function cachedSnapshot(dir, kind, key, make, now = new Date()) {
  const path = join(dir, `${kind}-${key}.tar`);
  if (!existsSync(path)) {
    mkdirSync(dir, { recursive: true });
    const partial = `${path}.${process.pid}.partial`;
    const status = await make(partial);
    if (status !== 0) {
      rmSync(partial, { force: true });
      return null;
    }
    renameSync(partial, path);
  }
  utimesSync(path, now, now);
  forgetOlder(dir, kind, now);
  return path;
}

function forgetOlder(dir, kind, now) {
  const snapshots = readdirSync(dir)
    .filter((name) => name.startsWith(`${kind}-`))
    .map((name) => ({ name, path: join(dir, name), used: statSync(join(dir, name)).mtimeMs }))
    .sort((a, b) => b.used - a.used);
  const abandoned = snapshots.filter(({ name, used }) => name.endsWith('.partial') && now.getTime() - used > ABANDONED_MS);
  const older = snapshots.filter(({ name }) => name.endsWith('.tar')).slice(KEPT);
  for (const { path } of [...abandoned, ...older]) rmSync(path, { force: true });
}
