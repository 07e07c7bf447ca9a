// The scheduler's slot accounting as a pure state machine: step(state, event)
// returns the next state and the actions the loop must carry out (set its
// timer, start a cycle, claim k checks, start claimed checks, hand some back).
// The loop (scheduler.ts) does the I/O and reports what happened as events;
// test/engine/slot-accounting.test.ts checks the machine event by event.

export interface SlotState {
  /** checks run at once (PAGEWATCH_WORKER_CONCURRENCY) */
  concurrency: number;
  /** checks a group commit takes at most */
  batchMax: number;
  /** the loop's cycle when nothing wakes it sooner (PAGEWATCH_TICK_SECONDS) */
  tickMs: number;
  /** start() was called and stop() was not */
  running: boolean;
  /** checks loading or extracting: what the concurrency limits */
  loading: number;
  /** claimed checks waiting for a slot */
  ready: number;
  /** checks started and not yet settled (loading, or waiting for their commit) */
  inFlight: number;
  /** a cycle of the loop (housekeeping, then its claim) is under way */
  claiming: boolean;
  /** the last claim left due work for lack of a slot (here or at its host) */
  waiting: boolean;
  /** the last claim moved a full page of overdue work on: claim again at once */
  again: boolean;
  /** a check ended while the current cycle claimed, when it could not wake the loop */
  freedDuringClaim: boolean;
  /** when the loop's timer fires (ms on the timer's clock); null when none is set */
  timerDueAt: number | null;
}

export type SlotEvent =
  /** start() */
  | { type: 'started'; at: number }
  /** the loop's timer fired */
  | { type: 'timerFired' }
  /** the cycle's housekeeping is done: time to claim */
  | { type: 'housekept' }
  /** the cycle's claim returned `count` checks, queued for the slots; the cycle is over */
  | { type: 'claimed'; count: number; waiting: boolean; again: boolean; at: number }
  /** the cycle failed (housekeeping or claim); it is over */
  | { type: 'cycleFailed'; at: number }
  /** a step's claim returned; its caller runs the checks itself */
  | { type: 'claimedToRun'; waiting: boolean; again: boolean }
  /** a check started outside the queue (a step's run) */
  | { type: 'checkStarted' }
  /** a check's load is done and it was handed to the group commit: its slot is free */
  | { type: 'loadFinished'; at: number }
  /** a check settled (recorded, handed back or failed); `loading` when it never reached its commit */
  | { type: 'checkSettled'; loading: boolean; at: number }
  /** stop() */
  | { type: 'stopRequested' };

export type SlotAction =
  | { type: 'setTimer'; delayMs: number }
  | { type: 'clearTimer' }
  /** begin a cycle: housekeeping, then report `housekept` */
  | { type: 'beginCycle' }
  | { type: 'claim'; capacity: number }
  /** start this many checks from the head of the queue */
  | { type: 'startChecks'; count: number }
  /** hand this many queued checks back, from the head of the queue */
  | { type: 'handBack'; count: number };

export interface SlotStep {
  state: SlotState;
  actions: SlotAction[];
}

export function initialSlotState(limits: Pick<SlotState, 'concurrency' | 'batchMax' | 'tickMs'>): SlotState {
  return {
    ...limits,
    running: false,
    loading: 0,
    ready: 0,
    inFlight: 0,
    claiming: false,
    waiting: false,
    again: false,
    freedDuringClaim: false,
    timerDueAt: null,
  };
}

/**
 * How many checks a claim may take: the free slots, and when the loop claims
 * ahead as many again, so a slot that frees starts a claimed check at once;
 * never more than the slots and one group commit can hold unfinished.
 */
export function claimRoom(state: SlotState, ahead: boolean): number {
  return Math.min(
    (ahead ? 2 : 1) * state.concurrency - state.loading - state.ready,
    state.concurrency + state.batchMax - state.inFlight - state.ready,
  );
}

/** A freed slot waits this long for others before it is claimed for, unless a quarter of the slots are free. */
export const CLAIM_GATHER_MS = 20;

export function step(state: SlotState, event: SlotEvent): SlotStep {
  switch (event.type) {
    case 'started':
      return setTimer({ ...state, running: true }, 0, event.at);
    case 'timerFired':
      // A failed cycle waits for the next tick: `again` is only set by a claim that returns.
      return {
        state: { ...state, timerDueAt: null, claiming: true, freedDuringClaim: false, again: false },
        actions: [{ type: 'beginCycle' }],
      };
    case 'housekept':
      return { state, actions: [{ type: 'claim', capacity: claimRoom(state, true) }] };
    case 'claimed': {
      const queued = startReady({ ...state, ready: state.ready + event.count, waiting: event.waiting, again: event.again });
      const ended = endCycle(queued.state, event.at);
      return { state: ended.state, actions: [...queued.actions, ...ended.actions] };
    }
    case 'cycleFailed':
      return endCycle(state, event.at);
    case 'claimedToRun':
      return { state: { ...state, waiting: event.waiting, again: event.again }, actions: [] };
    case 'checkStarted':
      return { state: { ...state, loading: state.loading + 1, inFlight: state.inFlight + 1 }, actions: [] };
    case 'loadFinished':
      return freed({ ...state, loading: state.loading - 1 }, event.at);
    case 'checkSettled':
      return freed({ ...state, inFlight: state.inFlight - 1, loading: state.loading - (event.loading ? 1 : 0) }, event.at);
    case 'stopRequested': {
      const stopped = { ...state, running: false, timerDueAt: null };
      // A claim under way hands back what it queued when it ends (endCycle).
      if (state.claiming) return { state: stopped, actions: [{ type: 'clearTimer' }] };
      return { state: { ...stopped, ready: 0 }, actions: [{ type: 'clearTimer' }, ...handBack(state.ready)] };
    }
  }
}

/** Claimed checks start while a slot is free and the loop runs. */
function startReady(state: SlotState): SlotStep {
  if (!state.running) return { state, actions: [] };
  const count = Math.max(0, Math.min(state.ready, state.concurrency - state.loading));
  if (count === 0) return { state, actions: [] };
  return {
    state: { ...state, ready: state.ready - count, loading: state.loading + count, inFlight: state.inFlight + count },
    actions: [{ type: 'startChecks', count }],
  };
}

/**
 * A cycle ended: the next runs at once when its claim moved a full page of
 * overdue work on, or when it left due work waiting and a check ended while
 * it claimed (that check could not wake the loop); else after the tick. A
 * stopped loop hands back what the claim queued instead.
 */
function endCycle(state: SlotState, at: number): SlotStep {
  const ended = { ...state, claiming: false };
  if (!state.running) return { state: { ...ended, ready: 0 }, actions: handBack(state.ready) };
  return setTimer(ended, state.again || (state.waiting && state.freedDuringClaim) ? 0 : state.tickMs, at);
}

/**
 * A slot or a commit's room freed: a queued check starts, and due work left
 * waiting is claimed for unless a claim is under way (it notes the freed slot
 * instead), there is no room (the next slot to free wakes the loop again),
 * or the timer fires soon enough anyway. With little room free and checks
 * still loading, the claim waits briefly for others: fewer, larger claims.
 */
function freed(state: SlotState, at: number): SlotStep {
  const started = startReady(state);
  const next = started.state.claiming ? { ...started.state, freedDuringClaim: true } : started.state;
  const delay = wakeDelay(next, at);
  if (delay === null) return { state: next, actions: started.actions };
  const woken = setTimer(next, delay, at);
  return { state: woken.state, actions: [...started.actions, ...woken.actions] };
}

function wakeDelay(state: SlotState, at: number): number | null {
  if (!state.running || !state.waiting || state.claiming) return null;
  const room = claimRoom(state, true);
  if (room <= 0) return null;
  const delay = state.loading > 0 && room < Math.max(1, Math.floor(state.concurrency / 4)) ? CLAIM_GATHER_MS : 0;
  if (state.timerDueAt !== null && state.timerDueAt - at <= delay) return null;
  return delay;
}

function setTimer(state: SlotState, delayMs: number, at: number): SlotStep {
  return { state: { ...state, timerDueAt: at + delayMs }, actions: [{ type: 'setTimer', delayMs }] };
}

function handBack(count: number): SlotAction[] {
  return count > 0 ? [{ type: 'handBack', count }] : [];
}
