/**
 * How many of the first indices of a sorted list `holds` is true for, `holds`
 * being true up to some index and false from there on: a binary search over
 * 0…length (the page's text, its layer and its stock phrases look up offsets
 * in sorted lists of them).
 */
export function partitionPoint(length: number, holds: (index: number) => boolean): number {
  let low = 0;
  let high = length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (holds(mid)) low = mid + 1;
    else high = mid;
  }
  return low;
}
