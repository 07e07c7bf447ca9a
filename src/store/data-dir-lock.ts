import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';

// PGlite has no lock of its own: two processes on one data directory would
// corrupt it. An exclusive lock file beside the directory refuses the second.

export class DataDirLockedError extends Error {
  constructor(dataDir: string, pid: number) {
    super(
      `the data directory ${dataDir} is in use by process ${pid}. Only one pagewatch process may open the embedded store; ` +
        'stop that process, or run administrative tasks through its operator API (pagewatch admin …).',
    );
    this.name = 'DataDirLockedError';
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

// Locks this process holds: a lock file naming our own pid is stale (a previous
// process that had the same pid) unless it is one of these.
const heldHere = new Set<string>();

export interface DataDirLock {
  release(): void;
}

/** Creates and locks the embedded store's data directory; an in-memory store (null) needs no lock. */
export function lockEmbeddedDataDir(dataDir: string | null): DataDirLock | null {
  if (dataDir === null) return null;
  mkdirSync(dataDir, { recursive: true });
  return lockDataDir(dataDir);
}

export function lockDataDir(dataDir: string): DataDirLock {
  const path = `${dataDir.replace(/\/+$/, '')}.lock`;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      heldHere.add(path);
      return {
        release: () => {
          heldHere.delete(path);
          unlinkSync(path);
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = Number(readFileSync(path, 'utf8').trim());
      // A lock left by a process that died (kill -9) is stale and taken over.
      const ours = holder === process.pid;
      if (ours ? heldHere.has(path) : Number.isInteger(holder) && holder > 0 && processAlive(holder)) {
        throw new DataDirLockedError(dataDir, holder);
      }
      unlinkSync(path);
    }
  }
  throw new Error(`could not lock ${dataDir}`);
}
