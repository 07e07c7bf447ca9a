import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CLAIM_GATHER_MS, claimRoom, initialSlotState, step, type SlotEvent, type SlotState } from '../../src/engine/slot-accounting.ts';

// The scheduler's slot accounting, event by event (src/engine/slot-accounting.ts).
// Times are ms on the loop timer's clock; every event here happens at 1,000.

const AT = 1000;
const TICK = 60_000;
const stopped = initialSlotState({ concurrency: 8, batchMax: 50, tickMs: TICK });
// A running loop between cycles, whose last claim left due work waiting; its timer fires after the tick.
const idle: SlotState = { ...stopped, running: true, waiting: true, timerDueAt: AT + TICK };
const slots = (over: Partial<SlotState>): SlotState => ({ ...idle, ...over });
const claimed = (count: number, over: Partial<Extract<SlotEvent, { type: 'claimed' }>> = {}): SlotEvent => ({
  type: 'claimed',
  count,
  waiting: true,
  again: false,
  at: AT,
  ...over,
});

test('a claim takes the free slots, and claiming ahead as many again', () => {
  assert.equal(claimRoom(idle, false), 8);
  assert.equal(claimRoom(idle, true), 16);
  assert.equal(claimRoom(slots({ loading: 5, ready: 2, inFlight: 5 }), false), 1);
  assert.equal(claimRoom(slots({ loading: 5, ready: 2, inFlight: 5 }), true), 9);
});

test('a claim never leaves more unfinished than the slots and one group commit hold', () => {
  // 8 slots free of loads, but 55 checks still wait for their commit
  assert.equal(claimRoom(slots({ inFlight: 55 }), true), 3);
  assert.ok(claimRoom(slots({ inFlight: 60 }), true) <= 0);
});

test('starting the loop runs a cycle at once', () => {
  const { state, actions } = step(stopped, { type: 'started', at: AT });
  assert.deepEqual(actions, [{ type: 'setTimer', delayMs: 0 }]);
  assert.equal(state.running, true);
  assert.equal(state.timerDueAt, AT);
});

test('the timer begins a cycle, which forgets the last claim’s page of overdue work and any slot freed before it', () => {
  const { state, actions } = step(slots({ again: true, freedDuringClaim: true }), { type: 'timerFired' });
  assert.deepEqual(actions, [{ type: 'beginCycle' }]);
  assert.equal(state.claiming, true);
  assert.equal(state.again, false);
  assert.equal(state.freedDuringClaim, false);
  assert.equal(state.timerDueAt, null);
});

test('after its housekeeping a cycle claims ahead of the slots', () => {
  const { actions } = step(slots({ claiming: true, loading: 5, ready: 2, inFlight: 5 }), { type: 'housekept' });
  assert.deepEqual(actions, [{ type: 'claim', capacity: 9 }]);
});

test('claimed checks start while slots are free; the rest wait in the queue', () => {
  const { state, actions } = step(slots({ claiming: true, loading: 5, inFlight: 5 }), claimed(6));
  assert.deepEqual(actions[0], { type: 'startChecks', count: 3 });
  assert.equal(state.loading, 8);
  assert.equal(state.inFlight, 8);
  assert.equal(state.ready, 3);
});

test('a claim that returned ends the cycle: the next runs after the tick', () => {
  const { state, actions } = step(slots({ claiming: true }), claimed(0));
  assert.deepEqual(actions, [{ type: 'setTimer', delayMs: TICK }]);
  assert.equal(state.claiming, false);
  assert.equal(state.timerDueAt, AT + TICK);
});

test('the next cycle runs at once after a claim that moved a full page of overdue work on', () => {
  const { actions } = step(slots({ claiming: true, loading: 8, inFlight: 8 }), claimed(8, { again: true, waiting: false }));
  assert.deepEqual(actions, [{ type: 'setTimer', delayMs: 0 }]);
});

test('a slot freed during a claim that left work waiting runs the next cycle at once', () => {
  const during = step(slots({ claiming: true, loading: 8, inFlight: 8 }), { type: 'loadFinished', at: AT });
  assert.deepEqual(during.actions, [], 'a claim under way is not woken');
  assert.equal(during.state.freedDuringClaim, true);
  assert.deepEqual(step(during.state, claimed(0, { waiting: true })).actions, [{ type: 'setTimer', delayMs: 0 }]);
  assert.deepEqual(step(during.state, claimed(0, { waiting: false })).actions, [{ type: 'setTimer', delayMs: TICK }]);
});

test('a failed cycle keeps the last claim’s answer and waits for the tick', () => {
  const { state, actions } = step(slots({ claiming: true }), { type: 'cycleFailed', at: AT });
  assert.deepEqual(actions, [{ type: 'setTimer', delayMs: TICK }]);
  assert.equal(state.claiming, false);
  assert.equal(state.waiting, true);
});

test('a check handed to the group commit frees its slot for a queued check', () => {
  const { state, actions } = step(slots({ waiting: false, loading: 8, ready: 8, inFlight: 8 }), { type: 'loadFinished', at: AT });
  assert.deepEqual(actions, [{ type: 'startChecks', count: 1 }]);
  assert.equal(state.loading, 8);
  assert.equal(state.ready, 7);
  assert.equal(state.inFlight, 9);
});

test('a freed slot wakes the loop at once when due work was left waiting and a quarter of the slots are free', () => {
  const { state, actions } = step(slots({ loading: 5, inFlight: 5 }), { type: 'loadFinished', at: AT });
  assert.deepEqual(actions, [{ type: 'setTimer', delayMs: 0 }]);
  assert.equal(state.timerDueAt, AT);
});

test('a freed slot does not wake the loop when the last claim left no due work waiting', () => {
  assert.deepEqual(step(slots({ waiting: false, loading: 5, inFlight: 5 }), { type: 'loadFinished', at: AT }).actions, []);
});

test('a full loop is not woken: the next slot to free wakes it', () => {
  // the freed slot starts a queued check, and the queue still holds a claim-ahead's worth
  const { actions } = step(slots({ loading: 8, ready: 9, inFlight: 8 }), { type: 'loadFinished', at: AT });
  assert.deepEqual(actions, [{ type: 'startChecks', count: 1 }]);
});

test('with little room and checks still loading, a freed slot waits briefly for others: fewer, larger claims', () => {
  const freed: SlotEvent = { type: 'loadFinished', at: AT };
  // the slot starts a queued check, leaving room for 1 of 16 (less than a quarter of 8 slots) while 8 load
  assert.deepEqual(step(slots({ loading: 8, ready: 8, inFlight: 8 }), freed).actions, [
    { type: 'startChecks', count: 1 },
    { type: 'setTimer', delayMs: CLAIM_GATHER_MS },
  ]);
  // room for 4 (a quarter) claims at once
  assert.deepEqual(step(slots({ loading: 8, ready: 5, inFlight: 8 }), freed).actions, [
    { type: 'startChecks', count: 1 },
    { type: 'setTimer', delayMs: 0 },
  ]);
});

test('a timer firing soon enough anyway is left as it is', () => {
  const freed: SlotEvent = { type: 'loadFinished', at: AT };
  assert.deepEqual(step(slots({ loading: 5, inFlight: 5, timerDueAt: AT }), freed).actions, []);
  assert.deepEqual(step(slots({ loading: 5, inFlight: 5, timerDueAt: AT + 500 }), freed).actions, [{ type: 'setTimer', delayMs: 0 }]);
  assert.deepEqual(step(slots({ loading: 8, ready: 8, inFlight: 8, timerDueAt: AT + 10 }), freed).actions, [
    { type: 'startChecks', count: 1 },
  ]);
});

test('a check that settles before its commit frees its slot; one that settles after frees room in the commit', () => {
  const beforeCommit = step(slots({ loading: 8, inFlight: 8 }), { type: 'checkSettled', loading: true, at: AT });
  assert.equal(beforeCommit.state.loading, 7);
  assert.equal(beforeCommit.state.inFlight, 7);
  const afterCommit = step(slots({ loading: 8, inFlight: 8 }), { type: 'checkSettled', loading: false, at: AT });
  assert.equal(afterCommit.state.loading, 8);
  assert.equal(afterCommit.state.inFlight, 7);
});

test('a commit’s freed room wakes a loop held back by the group commit', () => {
  // no room while 58 checks are unfinished; one settles and room opens
  const held = slots({ loading: 0, ready: 0, inFlight: 58 });
  assert.ok(claimRoom(held, true) <= 0);
  assert.deepEqual(step(held, { type: 'checkSettled', loading: false, at: AT }).actions, [{ type: 'setTimer', delayMs: 0 }]);
});

test('a step’s claim notes whether work was left waiting, and a step’s run takes a slot without the queue', () => {
  const noted = step(stopped, { type: 'claimedToRun', waiting: true, again: true });
  assert.deepEqual(noted.actions, []);
  assert.equal(noted.state.waiting, true);
  assert.equal(noted.state.again, true);
  const ran = step(noted.state, { type: 'checkStarted' });
  assert.deepEqual(ran.actions, []);
  assert.equal(ran.state.loading, 1);
  assert.equal(ran.state.inFlight, 1);
});

test('a stopped loop starts nothing and is not woken', () => {
  const { actions } = step(slots({ running: false, loading: 5, ready: 3, inFlight: 5 }), { type: 'loadFinished', at: AT });
  assert.deepEqual(actions, []);
});

test('stopping clears the timer and hands back the queued checks at once', () => {
  const { state, actions } = step(slots({ loading: 8, ready: 5, inFlight: 8 }), { type: 'stopRequested' });
  assert.deepEqual(actions, [{ type: 'clearTimer' }, { type: 'handBack', count: 5 }]);
  assert.equal(state.running, false);
  assert.equal(state.ready, 0);
  assert.equal(state.timerDueAt, null);
});

test('stopping during a claim hands back what the claim queued when it returns, and sets no timer', () => {
  const stopping = step(slots({ claiming: true, loading: 8, ready: 2, inFlight: 8 }), { type: 'stopRequested' });
  assert.deepEqual(stopping.actions, [{ type: 'clearTimer' }]);
  const { state, actions } = step(stopping.state, claimed(4));
  assert.deepEqual(actions, [{ type: 'handBack', count: 6 }]);
  assert.equal(state.claiming, false);
  assert.equal(state.ready, 0);
});
