import { FairQueue, type Lane, type QueueObserver } from '../../domain/fair-queue.ts';
import { RendererBusy } from './load-errors.ts';

// Admission to the browser's pages. Renders wait in a fair queue
// (domain/fair-queue.ts): checks and interactive renders take turns, and
// within a lane the accounts take turns. Interactive renders never hold every
// page, so a check always has one of its own; they are bounded per account
// (waiting or running) and overall (waiting), and past a bound the render is
// refused with RendererBusy. Checks wait too, up to their own bound, past
// which RendererBusy defers the check to a later cycle.

export interface RenderTurn {
  /** the account whose turn the render takes */
  account: string;
  lane: Lane;
}

export interface RenderSlotsOptions {
  /** pages rendered at once */
  slots: number;
  /** interactive renders one account may have waiting or running */
  maxPerAccount: number;
  /** interactive renders waiting overall */
  maxWaiting: number;
  /** check renders waiting overall */
  maxWaitingChecks: number;
  /** what a refusal tells the caller to wait: about one render's time */
  retryAfterSeconds: number;
  observer?: QueueObserver;
}

interface Waiter {
  turn: RenderTurn;
  queuedAt: number;
  grant(): void;
  refuse(error: Error): void;
}

/** Gives a page back; call exactly once. */
export type ReleaseSlot = () => void;

/** The queue kind the observer reports renders under. */
const KIND = 'page';

export class RenderSlots {
  readonly #options: RenderSlotsOptions;
  readonly #queue = new FairQueue<Waiter>();
  readonly #running: Record<Lane, number> = { check: 0, interactive: 0 };
  /** interactive renders waiting or running, per account */
  readonly #interactive = new Map<string, number>();

  constructor(options: RenderSlotsOptions) {
    this.#options = options;
  }

  /** A page for this render once its turn comes; RendererBusy past a bound; `signal` drops a waiting render (rejects with an Error). */
  acquire(turn: RenderTurn, signal?: AbortSignal): Promise<ReleaseSlot> {
    const refusal = this.#admit(turn);
    if (refusal) return Promise.reject(refusal);
    return new Promise<ReleaseSlot>((resolve, reject) => {
      const waiter: Waiter = {
        turn,
        queuedAt: performance.now(),
        grant: () => {
          signal?.removeEventListener('abort', drop);
          this.#running[turn.lane] += 1;
          resolve(this.#releaser(turn));
        },
        refuse: (error) => {
          signal?.removeEventListener('abort', drop);
          reject(error);
        },
      };
      const drop = (): void => {
        if (!this.#queue.remove(turn.lane, turn.account, waiter)) return;
        this.#leave(turn);
        this.#reportDepth(turn.lane);
        waiter.refuse(new Error('the load was cancelled while it waited'));
      };
      signal?.addEventListener('abort', drop, { once: true });
      this.#queue.push(turn.lane, turn.account, waiter);
      this.#reportDepth(turn.lane);
      this.#dispatch();
    });
  }

  /** Every waiting render is refused with `error` (the loader is closing). */
  refuseWaiting(error: Error): void {
    for (const waiter of this.#queue.drain()) {
      this.#leave(waiter.turn);
      waiter.refuse(error);
    }
    this.#reportDepth('check');
    this.#reportDepth('interactive');
  }

  #admit(turn: RenderTurn): RendererBusy | null {
    const { maxPerAccount, maxWaiting, maxWaitingChecks, retryAfterSeconds } = this.#options;
    if (turn.lane === 'check') {
      return this.#queue.size('check') >= maxWaitingChecks && !this.#open('check')
        ? new RendererBusy('all browser pages are in use', retryAfterSeconds)
        : null;
    }
    const held = this.#interactive.get(turn.account) ?? 0;
    if (held >= maxPerAccount)
      return new RendererBusy(
        `this account already has ${maxPerAccount} browser pages waiting or rendering; try again later`,
        retryAfterSeconds,
      );
    if (this.#queue.size('interactive') >= maxWaiting && !this.#open('interactive'))
      return new RendererBusy('all browser pages are in use', retryAfterSeconds);
    this.#interactive.set(turn.account, held + 1);
    return null;
  }

  /** Whether a render of this lane may start now. */
  #open(lane: Lane): boolean {
    const { slots } = this.#options;
    const running = this.#running.check + this.#running.interactive;
    if (running >= slots) return false;
    // Interactive renders leave a page free for checks, unless there is only one.
    return lane === 'check' || slots === 1 || this.#running.interactive < slots - 1;
  }

  #dispatch(): void {
    for (;;) {
      const taken = this.#queue.next((lane) => this.#open(lane));
      if (!taken) return;
      this.#reportDepth(taken.lane);
      this.#options.observer?.waited(KIND, taken.lane, (performance.now() - taken.item.queuedAt) / 1000);
      taken.item.grant();
    }
  }

  #releaser(turn: RenderTurn): ReleaseSlot {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#running[turn.lane] -= 1;
      this.#leave(turn);
      this.#dispatch();
    };
  }

  /** An interactive render no longer counts against its account. */
  #leave(turn: RenderTurn): void {
    if (turn.lane !== 'interactive') return;
    const left = (this.#interactive.get(turn.account) ?? 1) - 1;
    if (left > 0) this.#interactive.set(turn.account, left);
    else this.#interactive.delete(turn.account);
  }

  #reportDepth(lane: Lane): void {
    this.#options.observer?.depth(KIND, lane, this.#queue.size(lane));
  }
}
