import { setFlagsFromString } from 'node:v8';

// V8's young generation (where new objects are made) grows under allocation,
// its new space from 1 MiB to 32 MiB (v8.getHeapSpaceStatistics), and once
// grown stays so until the memory reducer shrinks it, seconds to minutes
// later. A server's start allocates enough to grow it in every isolate (the
// main one, PGlite's thread), so an empty install held ~20 MiB more at rest
// than it needed (docs/decisions/0059-footprint-v8s-young-generation-not-grown.md).
// `fixed` holds the main thread's at the size it has (2 MiB when serve sets
// it): more, cheaper scavenges, and more objects promoted to the old
// generation. V8 reads the growth factor each time it would grow, so setting
// it at run time, before the server's modules load, is enough: no
// command-line flag. Worker threads (PGlite's, the extraction threads) are
// not held by it on Node 20: theirs grows to 32 MiB all the same
// (docs/decisions/0079). `growing` leaves V8's own sizing, for a busy
// server that allocates fast.

export const YOUNG_GENERATIONS = ['fixed', 'growing'] as const;
export type YoungGeneration = (typeof YOUNG_GENERATIONS)[number];

/** Sizes the young generation of this process's isolates (PAGEWATCH_YOUNG_GENERATION); call before the server starts. */
export function sizeYoungGeneration(mode: YoungGeneration): void {
  if (mode === 'fixed') setFlagsFromString('--semi-space-growth-factor=1');
}
