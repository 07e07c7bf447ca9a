import { execFileSync } from 'node:child_process';
import { chmodSync, closeSync, mkdtempSync, openSync, rmdirSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// A real file system that runs out of room: a tmpfs of a fixed size, mounted
// for one test file (needs root), that the test fills to the last byte and
// frees again. Loopback-only tests cannot use a real disk for this.

export interface TinyDisk {
  path: string;
  /** writes a filler file until the file system refuses (ENOSPC) */
  fill(): void;
  /** removes the filler */
  free(): void;
  unmount(): void;
}

export const canMount = process.getuid?.() === 0;

/** Mounts a tmpfs of `megabytes` at a fresh directory, owned by `owner` (user:group ids) when given. */
export function mountTinyDisk(megabytes: number, owner?: { uid: number; gid: number }): TinyDisk {
  const path = mkdtempSync(join(tmpdir(), 'pagewatch-tiny-disk-'));
  // Others (the PostgreSQL server's user) must be able to reach into it.
  chmodSync(path, 0o755);
  const ownership = owner ? `,uid=${owner.uid},gid=${owner.gid},mode=0700` : '';
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${megabytes}m${ownership}`, 'tmpfs', path]);
  const filler = join(path, 'filler');
  return {
    path,
    fill() {
      const fd = openSync(filler, 'a');
      try {
        for (const size of [1 << 16, 512]) {
          const chunk = Buffer.alloc(size);
          try {
            for (;;) writeSync(fd, chunk);
          } catch (err) {
            if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
          }
        }
      } finally {
        closeSync(fd);
      }
    },
    free: () => rmSync(filler, { force: true }),
    unmount() {
      execFileSync('umount', [path]);
      rmdirSync(path);
    },
  };
}
