import { test } from 'node:test';
import assert from 'node:assert/strict';
import { latestDigestBoundary } from '../../src/domain/digest-periods.ts';

// Tuesday 10 March 2026, 12:00 UTC.
const TUESDAY_NOON = new Date('2026-03-10T12:00:00Z');
const boundary = (...args: Parameters<typeof latestDigestBoundary>) => latestDigestBoundary(...args).toISOString();

test('a daily period ends at the hour of the account in its time zone, today once the hour has passed', () => {
  assert.equal(boundary(TUESDAY_NOON, 'daily', 'UTC', 8), '2026-03-10T08:00:00.000Z');
  assert.equal(boundary(TUESDAY_NOON, 'daily', 'Europe/Berlin', 8), '2026-03-10T07:00:00.000Z');
});

test('before the hour the period that ended last is yesterday’s', () => {
  assert.equal(boundary(TUESDAY_NOON, 'daily', 'UTC', 13), '2026-03-09T13:00:00.000Z');
  assert.equal(boundary(TUESDAY_NOON, 'daily', 'America/New_York', 20), '2026-03-10T00:00:00.000Z');
});

test('a weekly period ends on Monday at the hour', () => {
  assert.equal(boundary(TUESDAY_NOON, 'weekly', 'Europe/Berlin', 8), '2026-03-09T07:00:00.000Z');
  assert.equal(boundary(new Date('2026-03-09T06:59:00Z'), 'weekly', 'Europe/Berlin', 8), '2026-03-02T07:00:00.000Z');
});

test('the hour follows the zone across a clock change', () => {
  // Berlin moves to summer time on 29 March 2026: 08:00 is 06:00 UTC from that day on.
  assert.equal(boundary(new Date('2026-03-29T12:00:00Z'), 'daily', 'Europe/Berlin', 8), '2026-03-29T06:00:00.000Z');
  assert.equal(boundary(new Date('2026-03-28T12:00:00Z'), 'daily', 'Europe/Berlin', 8), '2026-03-28T07:00:00.000Z');
});

test('an hour the clock change skips is taken as the hour after', () => {
  // 02:00 does not exist in Berlin on 29 March 2026; 03:00 CEST is 01:00 UTC.
  assert.equal(boundary(new Date('2026-03-29T12:00:00Z'), 'daily', 'Europe/Berlin', 2), '2026-03-29T01:00:00.000Z');
});
