// Waiting work served fairly: two lanes — monitoring checks and interactive
// requests (previews, evaluations) — take turns, and within a lane the
// accounts with work waiting take turns, each its oldest item first. So one
// account's flood waits behind itself, never in front of another account's
// single request, and checks never wait behind a run of interactive work.

export type Lane = 'check' | 'interactive';

const OTHER: Readonly<Record<Lane, Lane>> = { check: 'interactive', interactive: 'check' };

export interface Taken<T> {
  lane: Lane;
  account: string;
  item: T;
}

export class FairQueue<T> {
  // Per lane, the accounts with work in the order of their turns (a Map keeps insertion order: a served account goes to the end).
  readonly #lanes: Record<Lane, Map<string, T[]>> = { check: new Map(), interactive: new Map() };
  readonly #sizes: Record<Lane, number> = { check: 0, interactive: 0 };
  #lastLane: Lane = 'interactive';

  /** Items waiting, in one lane or in both. */
  size(lane?: Lane): number {
    return lane ? this.#sizes[lane] : this.#sizes.check + this.#sizes.interactive;
  }

  /** Items of a lane that satisfy `which`. */
  count(lane: Lane, which: (item: T) => boolean): number {
    let n = 0;
    for (const items of this.#lanes[lane].values()) for (const item of items) if (which(item)) n += 1;
    return n;
  }

  push(lane: Lane, account: string, item: T): void {
    const items = this.#lanes[lane].get(account);
    if (items) items.push(item);
    else this.#lanes[lane].set(account, [item]);
    this.#sizes[lane] += 1;
  }

  /** Puts an item back first in its account's line and its account first in the lane (work handed back, not new work). */
  putBack(lane: Lane, account: string, item: T): void {
    const accounts = this.#lanes[lane];
    const items = accounts.get(account) ?? [];
    items.unshift(item);
    const rest = [...accounts].filter(([other]) => other !== account);
    accounts.clear();
    accounts.set(account, items);
    for (const [other, otherItems] of rest) accounts.set(other, otherItems);
    this.#sizes[lane] += 1;
  }

  /** Takes the item out of the queue; false if it was not waiting. */
  remove(lane: Lane, account: string, item: T): boolean {
    const items = this.#lanes[lane].get(account);
    const index = items?.indexOf(item) ?? -1;
    if (!items || index === -1) return false;
    items.splice(index, 1);
    if (items.length === 0) this.#lanes[lane].delete(account);
    this.#sizes[lane] -= 1;
    return true;
  }

  /**
   * The next item to serve, among the lanes `open` allows: the lane not served last if it has work, then the next
   * account of that lane in turn.
   */
  next(open: (lane: Lane) => boolean): Taken<T> | undefined {
    const preferred = OTHER[this.#lastLane];
    for (const lane of [preferred, OTHER[preferred]]) {
      if (this.#sizes[lane] === 0 || !open(lane)) continue;
      const accounts = this.#lanes[lane];
      const [account, items] = accounts.entries().next().value!;
      const item = items.shift()!;
      accounts.delete(account);
      if (items.length > 0) accounts.set(account, items);
      this.#sizes[lane] -= 1;
      this.#lastLane = lane;
      return { lane, account, item };
    }
    return undefined;
  }

  /** Every waiting item, emptying the queue. */
  drain(): T[] {
    const all = (['check', 'interactive'] as const).flatMap((lane) => [...this.#lanes[lane].values()].flat());
    for (const lane of ['check', 'interactive'] as const) {
      this.#lanes[lane].clear();
      this.#sizes[lane] = 0;
    }
    return all;
  }
}

/** Who a job is for: the account whose turn it takes, its lane, and the signal of a client that may go away. */
export interface JobTicket {
  account: string;
  lane: Lane;
  /** aborted when the job's requester is gone: a waiting job is dropped, a running one stopped */
  signal?: AbortSignal;
}

/** Where a queue reports its depth and each job's wait (the process's /metrics). */
export interface QueueObserver {
  depth(kind: string, lane: Lane, waiting: number): void;
  waited(kind: string, lane: Lane, seconds: number): void;
}
