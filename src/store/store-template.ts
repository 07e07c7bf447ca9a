import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
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
export function storeTemplate(): Uint8Array<ArrayBuffer> | null {
  return existsSync(STORE_TEMPLATE) ? new Uint8Array(readFileSync(STORE_TEMPLATE)) : null;
}

export interface TarEntry {
  /** relative to the archive's root, without a leading slash */
  path: string;
  kind: 'file' | 'directory';
  content: Uint8Array;
}

const BLOCK = 512;

function text(bytes: Uint8Array, start: number, length: number): string {
  const field = bytes.subarray(start, start + length);
  const end = field.indexOf(0);
  return new TextDecoder().decode(end === -1 ? field : field.subarray(0, end));
}

/** The entries of a ustar archive (what PGlite's dumpDataDir writes: files and directories only). */
export function tarEntries(tar: Uint8Array): TarEntry[] {
  const entries: TarEntry[] = [];
  for (let at = 0; at + BLOCK <= tar.length;) {
    const header = tar.subarray(at, at + BLOCK);
    if (header.every((byte) => byte === 0)) break;
    const name = text(header, 0, 100);
    const prefix = text(header, 345, 155);
    const size = parseInt(text(header, 124, 12).trim() || '0', 8);
    const type = String.fromCharCode(header[156]!);
    const path = (prefix ? `${prefix}/${name}` : name).replace(/^\/+/, '').replace(/\/+$/, '');
    if (path.split('/').some((part) => part === '..')) throw new Error(`the store template names a path outside its directory: ${path}`);
    at += BLOCK;
    if (type === '5') entries.push({ path, kind: 'directory', content: new Uint8Array() });
    else if (type === '0' || type === '\0') entries.push({ path, kind: 'file', content: tar.subarray(at, at + size) });
    else throw new Error(`the store template holds an entry of tar type ${JSON.stringify(type)} (${path})`);
    at += Math.ceil(size / BLOCK) * BLOCK;
  }
  return entries;
}

/**
 * Writes the template's files into `dataDir` (which holds no store). PG_VERSION,
 * by which a data directory is recognised, is written last: an unpacking that
 * stops half-way is done again at the next start.
 */
export function unpackStoreTemplate(template: Uint8Array, dataDir: string): void {
  const entries = tarEntries(template);
  const ordered = [...entries.filter((e) => e.path !== 'PG_VERSION'), ...entries.filter((e) => e.path === 'PG_VERSION')];
  for (const entry of ordered) {
    const path = join(dataDir, entry.path);
    if (entry.kind === 'directory') mkdirSync(path, { recursive: true });
    else {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, entry.content);
    }
  }
}
