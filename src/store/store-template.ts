import { closeSync, existsSync, mkdirSync, openSync, readSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';

// A new embedded store starts from a template: a data directory created and
// migrated by the build (scripts/build.js), as PGlite's dumpDataDir writes it
// (a plain tar). Creating one at first start (initdb) took most of the first
// start's time and over 800 MiB at its peak. The template's files are written
// here, on the main thread: handing the template to a PGlite thread to unpack
// copied it three times and left that thread's memory behind (BENCHMARKS.md §9).
// The sources have no template: tests and development create the store.

/** The file the build writes the template to, next to this module. */
export const STORE_TEMPLATE = new URL('./empty-store.tar', import.meta.url);

/** The template next to the running code, or null when there is none (running from the sources). */
export function storeTemplate(): URL | null {
  return existsSync(STORE_TEMPLATE) ? STORE_TEMPLATE : null;
}

export interface TarEntry {
  /** relative to the archive's root, without a leading slash */
  path: string;
  kind: 'file' | 'directory';
  content: Uint8Array;
}

/** An entry's header: its content is `size` bytes from `at` in the archive. */
interface TarHeader {
  path: string;
  kind: 'file' | 'directory';
  at: number;
  size: number;
}

/** `length` bytes of the archive from `at` (fewer at its end). */
type ReadAt = (at: number, length: number) => Uint8Array;

const BLOCK = 512;
/** How much of a file's content is read and written at a time when unpacking from a file. */
const CHUNK = 1 << 20;

function text(bytes: Uint8Array, start: number, length: number): string {
  const field = bytes.subarray(start, start + length);
  const end = field.indexOf(0);
  return new TextDecoder().decode(end === -1 ? field : field.subarray(0, end));
}

/** The headers of a ustar archive (what PGlite's dumpDataDir writes: files and directories only). */
function* tarHeaders(read: ReadAt): Generator<TarHeader> {
  for (let at = 0; ;) {
    const header = read(at, BLOCK);
    if (header.length < BLOCK || header.every((byte) => byte === 0)) return;
    const name = text(header, 0, 100);
    const prefix = text(header, 345, 155);
    const size = parseInt(text(header, 124, 12).trim() || '0', 8);
    const type = String.fromCharCode(header[156]!);
    const path = (prefix ? `${prefix}/${name}` : name).replace(/^\/+/, '').replace(/\/+$/, '');
    if (path.split('/').some((part) => part === '..')) throw new Error(`the store template names a path outside its directory: ${path}`);
    at += BLOCK;
    if (type === '5') yield { path, kind: 'directory', at, size: 0 };
    else if (type === '0' || type === '\0') yield { path, kind: 'file', at, size };
    else throw new Error(`the store template holds an entry of tar type ${JSON.stringify(type)} (${path})`);
    at += Math.ceil(size / BLOCK) * BLOCK;
  }
}

/** The entries of a ustar archive in memory. */
export function tarEntries(tar: Uint8Array): TarEntry[] {
  return [...tarHeaders((at, length) => tar.subarray(at, at + length))].map(({ path, kind, at, size }) => ({
    path,
    kind,
    content: tar.subarray(at, at + size),
  }));
}

/**
 * Writes the template's files into `dataDir` (which holds no store). PG_VERSION,
 * by which a data directory is recognised, is written last: an unpacking that
 * stops half-way is done again at the next start. A template file is read a
 * chunk at a time: read whole (40 MiB) it stayed resident as garbage after a
 * first start until a full collection came (docs/decisions/0059-footprint-v8s-young-generation-not-grown.md).
 */
export function unpackStoreTemplate(template: Uint8Array | URL, dataDir: string): void {
  if (!(template instanceof URL)) return unpackFrom((at, length) => template.subarray(at, at + length), dataDir);
  const fd = openSync(template, 'r');
  try {
    unpackFrom((at, length) => {
      const bytes = new Uint8Array(length);
      return bytes.subarray(0, readSync(fd, bytes, 0, length, at));
    }, dataDir);
  } finally {
    closeSync(fd);
  }
}

function unpackFrom(read: ReadAt, dataDir: string): void {
  const headers = [...tarHeaders(read)];
  const ordered = [...headers.filter((h) => h.path !== 'PG_VERSION'), ...headers.filter((h) => h.path === 'PG_VERSION')];
  for (const header of ordered) {
    const path = join(dataDir, header.path);
    if (header.kind === 'directory') {
      mkdirSync(path, { recursive: true });
      continue;
    }
    mkdirSync(dirname(path), { recursive: true });
    const out = openSync(path, 'w');
    try {
      for (let done = 0; done < header.size;) {
        const chunk = read(header.at + done, Math.min(CHUNK, header.size - done));
        if (chunk.length === 0) throw new Error(`the store template ends inside ${header.path}`);
        writeSync(out, chunk);
        done += chunk.length;
      }
    } finally {
      closeSync(out);
    }
  }
}
