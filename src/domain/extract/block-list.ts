// A list that may grow long (the elements and text pieces of a large shop
// page), kept in blocks of a few thousand entries: one array outgrows V8's
// regular objects there, and each growth then maps fresh memory, whose first
// touch is dear on some virtual machines (decision record 0084).

const BLOCK_BITS = 12;
const IN_BLOCK = (1 << BLOCK_BITS) - 1;

export class BlockList<T> {
  private readonly blocks: T[][] = [];
  length = 0;

  push(value: T): void {
    if ((this.length & IN_BLOCK) === 0) this.blocks.push([]);
    this.blocks[this.blocks.length - 1]!.push(value);
    this.length++;
  }

  /** the value at place i (0 ≤ i < length) */
  at(i: number): T {
    return this.blocks[i >> BLOCK_BITS]![i & IN_BLOCK]!;
  }

  /** The values joined as strings, as Array.prototype.join('') joins them: a block at a time, then the blocks. */
  join(): string {
    return this.blocks.length === 1 ? this.blocks[0]!.join('') : this.blocks.map((block) => block.join('')).join('');
  }

  /** The value's first place at or after `from`; -1 when none. */
  indexOf(value: T, from: number): number {
    const first = from >> BLOCK_BITS;
    for (let block = first; block < this.blocks.length; block++) {
      const at = this.blocks[block]!.indexOf(value, block === first ? from & IN_BLOCK : 0);
      if (at >= 0) return (block << BLOCK_BITS) + at;
    }
    return -1;
  }

  /** The value's last place at or before `from` (< length); -1 when none. */
  lastIndexOf(value: T, from: number): number {
    const first = from >> BLOCK_BITS;
    for (let block = first; block >= 0; block--) {
      const at = this.blocks[block]!.lastIndexOf(value, block === first ? from & IN_BLOCK : IN_BLOCK);
      if (at >= 0) return (block << BLOCK_BITS) + at;
    }
    return -1;
  }
}
