import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  BACKOFF_INITIAL_SECONDS,
  BACKOFF_MAX_SECONDS,
  INITIAL_SPREAD_SECONDS,
  RETRY_AFTER_MAX_SECONDS,
  initialDueAt,
  nextBackoff,
  nextDueAt,
  slotWaitsForInterval,
  stableOffsetSeconds,
} from '../../src/domain/schedule.ts';

const ids = Array.from({ length: 1000 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);
const at = (iso: string): Date => new Date(iso);
const seconds = (a: Date, b: Date): number => (b.getTime() - a.getTime()) / 1000;

// Offsets

test('the offset of a monitor is the same on every call', () => {
  assert.equal(stableOffsetSeconds(ids[0]!, 15), stableOffsetSeconds(ids[0]!, 15));
});

test('the offset lies within the interval', () => {
  for (const id of ids) {
    const offset = stableOffsetSeconds(id, 5);
    assert.ok(Number.isInteger(offset) && offset >= 0 && offset < 300, `${offset}`);
  }
});

test('monitors with the same interval are spread over it', () => {
  // 1000 monitors on a 5-minute interval: every minute of it gets a share,
  // and no second holds more than a handful.
  const offsets = ids.map((id) => stableOffsetSeconds(id, 5));
  const perMinute = [0, 0, 0, 0, 0];
  for (const offset of offsets) perMinute[Math.floor(offset / 60)]! += 1;
  for (const count of perMinute) assert.ok(count > 150 && count < 250, `${perMinute}`);
  const perSecond = new Map<number, number>();
  for (const offset of offsets) perSecond.set(offset, (perSecond.get(offset) ?? 0) + 1);
  assert.ok(Math.max(...perSecond.values()) <= 12, `${Math.max(...perSecond.values())}`);
});

test('an interval that is not a whole number of minutes, at least 1, is rejected', () => {
  assert.throws(() => stableOffsetSeconds(ids[0]!, 0), RangeError);
  assert.throws(() => stableOffsetSeconds(ids[0]!, 2.5), RangeError);
});

// Next due time

test('in normal operation the next due time is one interval after the last', () => {
  const offset = 90;
  const last = at('2026-01-01T10:01:30Z'); // a slot of a 5-minute interval with offset 90 s
  assert.deepEqual(nextDueAt(last, 5, offset, at('2026-01-01T10:01:45Z')), at('2026-01-01T10:06:30Z'));
});

test('the next due time falls on the monitor’s own phase', () => {
  const due = nextDueAt(at('2026-01-01T10:00:00Z'), 60, 754, at('2026-01-01T10:00:00Z'));
  assert.equal((due.getTime() / 1000 - 754) % 3600, 0);
  assert.deepEqual(due, at('2026-01-01T10:12:34Z'));
});

test('a monitor is first scheduled on its phase after its creation time', () => {
  const created = at('2026-01-01T10:00:10Z');
  assert.deepEqual(nextDueAt(created, 5, 30, created), at('2026-01-01T10:00:30Z'));
});

test('the next due time is always in the future', () => {
  const now = at('2026-01-01T10:00:30Z');
  // now is itself a slot: the next one is a whole interval later, not now.
  assert.deepEqual(nextDueAt(at('2026-01-01T09:55:30Z'), 5, 30, now), at('2026-01-01T10:05:30Z'));
});

test('after a long downtime the next due time is the next slot in the future, not now', () => {
  const lastDue = at('2026-01-01T00:00:30Z');
  const now = at('2026-01-03T12:34:56Z');
  const due = nextDueAt(lastDue, 60, 30, now);
  assert.deepEqual(due, at('2026-01-03T13:00:30Z'));
});

test('after a downtime overdue monitors come back spread over their phases', () => {
  const lastDue = at('2026-01-01T00:00:00Z');
  const now = at('2026-01-02T00:00:00Z');
  const dues = ids.map((id) => nextDueAt(lastDue, 5, stableOffsetSeconds(id, 5), now));
  for (const due of dues) {
    const wait = seconds(now, due);
    assert.ok(wait > 0 && wait <= 300, `${wait}`);
  }
  assert.ok(new Set(dues.map((due) => due.getTime())).size > 200);
});

test('missed slots are skipped, not made up', () => {
  // The check due at 10:00:00 took 12 minutes: the 10:05 and 10:10 slots are gone.
  const due = nextDueAt(at('2026-01-01T10:00:00Z'), 5, 0, at('2026-01-01T10:12:00Z'));
  assert.deepEqual(due, at('2026-01-01T10:15:00Z'));
});

test('a previous due time ahead of the clock still moves the schedule forward', () => {
  const due = nextDueAt(at('2026-01-01T10:05:00Z'), 5, 0, at('2026-01-01T10:04:59Z'));
  assert.deepEqual(due, at('2026-01-01T10:10:00Z'));
});

// First capture

test('a new monitor is first due within the next minute', () => {
  const now = at('2026-01-01T10:00:00Z');
  for (const id of ids) {
    const wait = seconds(now, initialDueAt(id, now));
    assert.ok(wait >= 0 && wait < INITIAL_SPREAD_SECONDS, `${wait}`);
  }
});

test('monitors created together are not first due together', () => {
  const now = at('2026-01-01T10:00:00Z');
  const dues = new Set(ids.slice(0, 100).map((id) => initialDueAt(id, now).getTime()));
  assert.ok(dues.size > 40, `${dues.size}`);
});

// Host backoff

test('the first backoff of a host is one scheduler cycle', () => {
  assert.equal(nextBackoff(null, null), BACKOFF_INITIAL_SECONDS);
});

test('each further failure doubles the backoff', () => {
  assert.equal(nextBackoff(60, null), 120);
  assert.equal(nextBackoff(120, null), 240);
});

test('the backoff stops growing at its cap', () => {
  assert.equal(nextBackoff(3000, null), BACKOFF_MAX_SECONDS);
  assert.equal(nextBackoff(BACKOFF_MAX_SECONDS, null), BACKOFF_MAX_SECONDS);
});

test('the backoff is never shorter than the host’s Retry-After', () => {
  assert.equal(nextBackoff(null, 900), 900);
  assert.equal(nextBackoff(120, 30), 240);
});

test('a fractional Retry-After is rounded up to whole seconds', () => {
  assert.equal(nextBackoff(null, 100.2), 101);
});

test('a Retry-After beyond a day is capped', () => {
  assert.equal(nextBackoff(null, 30 * 24 * 3600), RETRY_AFTER_MAX_SECONDS);
});

test('after a long Retry-After doubling resumes from the cap', () => {
  assert.equal(nextBackoff(7200, null), BACKOFF_MAX_SECONDS);
});

test('invalid Retry-After values are ignored', () => {
  assert.equal(nextBackoff(null, -5), BACKOFF_INITIAL_SECONDS);
  assert.equal(nextBackoff(null, Number.NaN), BACKOFF_INITIAL_SECONDS);
});

test('an own slot reached less than an interval after the previous capture waits; other due times and later moments do not', () => {
  const offset = stableOffsetSeconds('m-late', 5);
  const slot = nextDueAt(new Date('2026-11-27T00:00:00Z'), 5, offset, new Date('2026-11-27T00:00:00Z'));
  const lateCapture = new Date(slot.getTime() - 5 * 60_000 + 50_000);
  assert.equal(slotWaitsForInterval(slot, lateCapture, 5, offset, slot), true);
  assert.equal(slotWaitsForInterval(slot, lateCapture, 5, offset, new Date(lateCapture.getTime() + 5 * 60_000)), false);
  assert.equal(slotWaitsForInterval(slot, null, 5, offset, slot), false, 'never captured');
  const recheck = new Date(slot.getTime() + 30_000);
  assert.equal(slotWaitsForInterval(recheck, slot, 5, offset, recheck), false, 'a confirm re-check is not an own slot');
});
