import { existsSync, readFileSync } from 'node:fs';

// A new embedded store starts from a template: a data directory created and
// migrated by the build (scripts/build.js), as PGlite's dumpDataDir writes it.
// Creating one at first start (initdb) took most of the first start's time and
// over 800 MiB at its peak; unpacking the template takes a fraction of either.
// The sources have no template: tests and development create the store.

/** The file the build writes the template to, next to this module. */
export const STORE_TEMPLATE = new URL('./empty-store.tar', import.meta.url);

/** The template next to the running code, or null when there is none (running from the sources). */
export function storeTemplate(): Uint8Array<ArrayBuffer> | null {
  return existsSync(STORE_TEMPLATE) ? new Uint8Array(readFileSync(STORE_TEMPLATE)) : null;
}
