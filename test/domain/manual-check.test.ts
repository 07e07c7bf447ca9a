import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  CHECK_STATUSES,
  earliestRunAt,
  expiresAt,
  isTerminal,
  transition,
  type CheckEvent,
  type CheckStatus,
} from '../../src/domain/manual-check.ts';

const EVENTS: CheckEvent[] = ['claim', 'finish_ok', 'finish_failed', 'expire', 'cancel'];

test('succeeded, failed, cancelled and expired are terminal', () => {
  assert.deepEqual(CHECK_STATUSES.filter(isTerminal), ['succeeded', 'failed', 'cancelled', 'expired']);
});

test('queued and running are not terminal', () => {
  assert.equal(isTerminal('queued'), false);
  assert.equal(isTerminal('running'), false);
});

test('a queued check expires 30 minutes after it was requested', () => {
  assert.deepEqual(expiresAt(new Date('2026-01-01T10:00:00Z')), new Date('2026-01-01T10:30:00Z'));
});

test('a worker claiming a queued check makes it running', () => {
  assert.deepEqual(transition('queued', 'claim'), { ok: true, status: 'running' });
});

test('an unclaimed queued check expires', () => {
  assert.deepEqual(transition('queued', 'expire'), { ok: true, status: 'expired' });
});

test('a queued check is cancelled when the monitor is paused, deleted or changed', () => {
  assert.deepEqual(transition('queued', 'cancel'), { ok: true, status: 'cancelled' });
});

test('a running check ends as succeeded or failed', () => {
  assert.deepEqual(transition('running', 'finish_ok'), { ok: true, status: 'succeeded' });
  assert.deepEqual(transition('running', 'finish_failed'), { ok: true, status: 'failed' });
});

test('a running check can neither expire nor be cancelled', () => {
  assert.equal(transition('running', 'expire').ok, false);
  assert.equal(transition('running', 'cancel').ok, false);
});

test('a queued check cannot finish before it is claimed', () => {
  assert.equal(transition('queued', 'finish_ok').ok, false);
  assert.equal(transition('queued', 'finish_failed').ok, false);
});

test('a running check cannot be claimed again', () => {
  assert.deepEqual(transition('running', 'claim'), {
    ok: false,
    from: 'running',
    event: 'claim',
    message: 'a running check cannot take the event claim',
  });
});

test('terminal statuses accept no event', () => {
  for (const status of ['succeeded', 'failed', 'cancelled', 'expired'] as CheckStatus[]) {
    for (const event of EVENTS) {
      assert.deepEqual(transition(status, event), { ok: false, from: status, event, message: `check is already ${status}` });
    }
  }
});

test('a manual check runs no sooner than the plan minimum after the previous capture', () => {
  assert.deepEqual(earliestRunAt(new Date('2026-01-01T10:00:00Z'), 5), new Date('2026-01-01T10:05:00Z'));
});

test('a monitor without a capture can be checked at once', () => {
  assert.equal(earliestRunAt(null, 5), null);
});

test('a plan minimum of zero holds nothing back', () => {
  const last = new Date('2026-01-01T10:00:00Z');
  assert.deepEqual(earliestRunAt(last, 0), last);
});

test('a negative plan minimum is rejected', () => {
  assert.throws(() => earliestRunAt(new Date(0), -1), RangeError);
});
