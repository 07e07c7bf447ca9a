import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CLAIM_GATHER_MS, claimRoom, mayStart, nextCycleDelay, wakeDelay, type SlotCounts } from '../../src/engine/slot-accounting.ts';

// The scheduler's slot accounting, rule by rule (src/engine/slot-accounting.ts).

const idle: SlotCounts = { concurrency: 8, batchMax: 50, loading: 0, ready: 0, inFlight: 0 };
const counts = (over: Partial<SlotCounts>): SlotCounts => ({ ...idle, ...over });
const awake = { running: true, waiting: true, claiming: false, timerDueInMs: null };

test('a claim takes the free slots, and claiming ahead as many again', () => {
  assert.equal(claimRoom(idle, false), 8);
  assert.equal(claimRoom(idle, true), 16);
  assert.equal(claimRoom(counts({ loading: 5, ready: 2, inFlight: 5 }), false), 1);
  assert.equal(claimRoom(counts({ loading: 5, ready: 2, inFlight: 5 }), true), 9);
});

test('a claim never leaves more unfinished than the slots and one group commit hold', () => {
  // 8 slots free of loads, but 55 checks still wait for their commit
  assert.equal(claimRoom(counts({ inFlight: 55 }), true), 3);
  assert.ok(claimRoom(counts({ inFlight: 60 }), true) <= 0);
});

test('a claimed check starts while a slot is free and the loop runs', () => {
  assert.equal(mayStart(counts({ ready: 1 }), true), true);
  assert.equal(mayStart(counts({ ready: 1, loading: 8 }), true), false);
  assert.equal(mayStart(counts({ ready: 0 }), true), false);
  assert.equal(mayStart(counts({ ready: 1 }), false), false);
});

test('a freed slot wakes the loop only when due work was left waiting and no claim is under way', () => {
  assert.equal(wakeDelay(idle, awake), 0);
  assert.equal(wakeDelay(idle, { ...awake, waiting: false }), null);
  assert.equal(wakeDelay(idle, { ...awake, claiming: true }), null);
  assert.equal(wakeDelay(idle, { ...awake, running: false }), null);
});

test('a full loop is not woken: the next slot to free wakes it', () => {
  assert.equal(wakeDelay(counts({ loading: 8, ready: 8 }), awake), null);
});

test('with little room and checks still loading, a freed slot waits briefly for others: fewer, larger claims', () => {
  // room 1 of 16 (less than a quarter of 8 slots) while 7 load
  assert.equal(wakeDelay(counts({ loading: 7, ready: 8 }), awake), CLAIM_GATHER_MS);
  // room 4 (a quarter) claims at once
  assert.equal(wakeDelay(counts({ loading: 4, ready: 8 }), awake), 0);
});

test('a timer firing soon enough anyway is left as it is', () => {
  assert.equal(wakeDelay(idle, { ...awake, timerDueInMs: 0 }), null);
  assert.equal(wakeDelay(idle, { ...awake, timerDueInMs: 500 }), 0);
  assert.equal(wakeDelay(counts({ loading: 7, ready: 8 }), { ...awake, timerDueInMs: 10 }), null);
});

test('the next cycle runs at once after a full page of overdue work, or when a check ended during a claim that left work waiting; else after the tick', () => {
  assert.equal(nextCycleDelay({ again: true, waiting: false, freedDuringClaim: false }, 60_000), 0);
  assert.equal(nextCycleDelay({ again: false, waiting: true, freedDuringClaim: true }, 60_000), 0);
  assert.equal(nextCycleDelay({ again: false, waiting: true, freedDuringClaim: false }, 60_000), 60_000);
  assert.equal(nextCycleDelay({ again: false, waiting: false, freedDuringClaim: true }, 60_000), 60_000);
});
