import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

// PGlite's PostgreSQL memory, sized for the install. Its defaults (initdb's:
// 128 MB of shared buffers, 64 MB of maintenance memory) are a server's, and
// in WebAssembly memory once touched is never given back: an install of ten
// monitors held them all for its life. The shared buffers follow the store's
// size, a quarter of it, between 16 and 128 MiB (the default, which the
// 100,000-monitor benchmark runs with); maintenance memory (VACUUM, index
// builds) is half of them. work_mem (4 MB, per sort) and wal_buffers (1/32 of
// the shared buffers) keep PostgreSQL's own rules.

export interface PgliteMemory {
  sharedBuffersMiB: number;
  maintenanceWorkMemMiB: number;
}

const MIN_SHARED_BUFFERS_MIB = 16;
const MAX_SHARED_BUFFERS_MIB = 128;

/** The memory for a store of `storeBytes`; `sharedBuffersMiB` (PAGEWATCH_PGLITE_SHARED_BUFFERS_MB) overrides the sizing. */
export function pgliteMemoryFor(storeBytes: number, sharedBuffersMiB: number | null = null): PgliteMemory {
  const sized = Math.round(storeBytes / 4 / 1048576);
  const shared = sharedBuffersMiB ?? Math.min(MAX_SHARED_BUFFERS_MIB, Math.max(MIN_SHARED_BUFFERS_MIB, sized));
  return { sharedBuffersMiB: shared, maintenanceWorkMemMiB: Math.max(8, Math.floor(shared / 2)) };
}

/** PostgreSQL's -c settings for `memory`, to follow PGlite's own start parameters. */
export function pgliteMemoryParams(memory: PgliteMemory): string[] {
  return ['-c', `shared_buffers=${memory.sharedBuffersMiB}MB`, '-c', `maintenance_work_mem=${memory.maintenanceWorkMemMiB}MB`];
}

/** Bytes of the files under `dir` (0 when it does not exist yet). */
export function directoryBytes(dir: string): number {
  let total = 0;
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += directoryBytes(path);
    else if (entry.isFile()) total += statSync(path).size;
  }
  return total;
}
