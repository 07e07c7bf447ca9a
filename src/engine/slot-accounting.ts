// The scheduler's slot accounting, as pure rules over a snapshot of its
// counts: how much a claim may take, when a freed slot wakes the loop, when
// the next cycle runs. The loop (scheduler.ts) keeps the counts and acts on
// what these rules decide; test/engine/slot-accounting.test.ts checks them
// one rule at a time.

export interface SlotCounts {
  /** checks run at once (PAGEWATCH_WORKER_CONCURRENCY) */
  concurrency: number;
  /** checks a group commit takes at most */
  batchMax: number;
  /** checks loading or extracting: what the concurrency limits */
  loading: number;
  /** claimed checks waiting for a slot */
  ready: number;
  /** checks started and not yet settled (loading, or waiting for their commit) */
  inFlight: number;
}

/**
 * How many checks a claim may take: the free slots, and when the loop claims
 * ahead as many again, so a slot that frees starts a claimed check at once;
 * never more than the slots and one group commit can hold unfinished.
 */
export function claimRoom(counts: SlotCounts, ahead: boolean): number {
  return Math.min(
    (ahead ? 2 : 1) * counts.concurrency - counts.loading - counts.ready,
    counts.concurrency + counts.batchMax - counts.inFlight - counts.ready,
  );
}

/** Whether a claimed check waiting for a slot may start now. */
export function mayStart(counts: SlotCounts, running: boolean): boolean {
  return running && counts.loading < counts.concurrency && counts.ready > 0;
}

/** A freed slot waits this long for others before it is claimed for, unless a quarter of the slots are free. */
export const CLAIM_GATHER_MS = 20;

export interface WakeState {
  running: boolean;
  /** the last claim left due work for lack of a slot (here or at its host) */
  waiting: boolean;
  /** a claim is under way */
  claiming: boolean;
  /** ms until the loop's timer fires; null when none is set */
  timerDueInMs: number | null;
}

/**
 * When a freed slot should run the loop: null when it should not (stopped,
 * nothing was left waiting, a claim is under way, no room, or the timer fires
 * soon enough anyway), else after how many ms: fewer, larger claims when
 * little room is free and checks are still loading.
 */
export function wakeDelay(counts: SlotCounts, state: WakeState): number | null {
  if (!state.running || !state.waiting || state.claiming) return null;
  const room = claimRoom(counts, true);
  if (room <= 0) return null;
  const delay = counts.loading > 0 && room < Math.max(1, Math.floor(counts.concurrency / 4)) ? CLAIM_GATHER_MS : 0;
  if (state.timerDueInMs !== null && state.timerDueInMs <= delay) return null;
  return delay;
}

/**
 * When the next cycle runs after a claim: at once when the claim moved a full
 * page of overdue work on (`again`), or when it left due work waiting and a
 * check ended while it claimed (that check could not wake the loop); else
 * after the tick.
 */
export function nextCycleDelay(claim: { again: boolean; waiting: boolean; freedDuringClaim: boolean }, tickMs: number): number {
  return claim.again || (claim.waiting && claim.freedDuringClaim) ? 0 : tickMs;
}
