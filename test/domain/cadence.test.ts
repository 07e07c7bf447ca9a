import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cadenceOf, type CadenceMonitor } from '../../src/domain/cadence.ts';
import { cronShortestGapMinutes, scheduleProblems, type MonitorSchedule } from '../../src/domain/monitor-schedule.ts';
import { nextDueAt, stableOffsetSeconds } from '../../src/domain/schedule.ts';

const MINUTE = 60_000;
const at = (iso: string): Date => new Date(iso);

/** Wall-clock weekday and hour of an instant in a time zone. */
function local(instant: Date, timeZone: string): { day: string; hour: number; minute: number } {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone, weekday: 'short', hour: 'numeric', minute: 'numeric', hourCycle: 'h23' })
    .formatToParts(instant)
    .reduce<Record<string, string>>((all, p) => ({ ...all, [p.type]: p.value }), {});
  return { day: parts.weekday!.toLowerCase(), hour: Number(parts.hour), minute: Number(parts.minute) };
}

/** The slots a monitor is due at from `start` on, `count` of them, each served on time. */
function slots(monitor: CadenceMonitor, start: Date, count: number): Date[] {
  const cadence = cadenceOf(monitor);
  const found: Date[] = [];
  let due = start;
  for (let i = 0; i < count; i++) {
    due = cadence.nextDue(due, due);
    found.push(due);
  }
  return found;
}

test('without a schedule the cadence is the interval slots of schedule.ts, unchanged', () => {
  const monitor = { id: 'plain', intervalMinutes: 15, schedule: null };
  const start = at('2026-03-10T12:00:00Z');
  const offset = stableOffsetSeconds('plain', 15);
  assert.deepEqual(cadenceOf(monitor).nextDue(start, start), nextDueAt(start, 15, offset, start));
});

test('business hours: every slot falls on a chosen weekday within the hours of the local clock, across the spring DST change', () => {
  const schedule: MonitorSchedule = { timezone: 'Europe/Berlin', days: ['mon', 'tue', 'wed', 'thu', 'fri'], hours: { from: 9, to: 17 } };
  // Friday 27 March 2026 to the week after Berlin moved its clocks on Sunday 29 March.
  const due = slots({ id: 'office', intervalMinutes: 60, schedule }, at('2026-03-27T06:00:00Z'), 40);
  for (const slot of due) {
    const { day, hour } = local(slot, 'Europe/Berlin');
    assert.ok(schedule.days!.includes(day as 'mon'), `${slot.toISOString()} is a ${day}`);
    assert.ok(hour >= 9 && hour < 17, `${slot.toISOString()} is at ${hour}h Berlin time`);
  }
  // Eight slots a day in local hours whether the day is in CET (UTC+1) or CEST (UTC+2).
  const friday = due.filter((d) => d.toISOString().startsWith('2026-03-27'));
  const monday = due.filter((d) => d.toISOString().startsWith('2026-03-30'));
  assert.equal(friday.length, 8);
  assert.equal(monday.length, 8);
  assert.equal(local(friday[0]!, 'Europe/Berlin').hour, 9);
  assert.equal(local(monday[0]!, 'Europe/Berlin').hour, 9);
  assert.equal(monday[0]!.getUTCHours(), 7, 'Monday 09:xx CEST is 07:xx UTC');
  assert.equal(friday[0]!.getUTCHours(), 8, 'Friday 09:xx CET is 08:xx UTC');
});

test('hours that wrap midnight belong to the day they begin: a Friday night runs into Saturday, a Saturday night does not start', () => {
  const schedule: MonitorSchedule = { timezone: 'America/New_York', days: ['fri'], hours: { from: 22, to: 2 } };
  const due = slots({ id: 'night', intervalMinutes: 30, schedule }, at('2026-11-06T12:00:00Z'), 16);
  const locals = due.map((d) => local(d, 'America/New_York'));
  // Friday 22:00 to Saturday 02:00 holds 8 half-hour slots, then the next Friday.
  assert.deepEqual(
    locals.slice(0, 8).map((l) => `${l.day} ${l.hour}`),
    ['fri 22', 'fri 22', 'fri 23', 'fri 23', 'sat 0', 'sat 0', 'sat 1', 'sat 1'],
  );
  assert.equal(locals[8]!.day, 'fri');
  assert.ok(due[8]!.getTime() - due[7]!.getTime() > 6 * 24 * 60 * MINUTE);
});

test('a night window keeps its local hours across the autumn DST change (the repeated hour is inside the window)', () => {
  const schedule: MonitorSchedule = { timezone: 'Europe/Berlin', hours: { from: 22, to: 4 } };
  // The night of Saturday 24 to Sunday 25 October 2026: clocks go back at 03:00 CEST.
  const due = slots({ id: 'autumn', intervalMinutes: 60, schedule }, at('2026-10-24T12:00:00Z'), 14);
  for (const slot of due) {
    const { hour } = local(slot, 'Europe/Berlin');
    assert.ok(hour >= 22 || hour < 4, `${slot.toISOString()} is at ${hour}h Berlin time`);
  }
  const night = due.filter((d) => d < at('2026-10-25T12:00:00Z'));
  // 22:00 CEST to 04:00 CET is seven hours of real time: seven hourly slots.
  assert.equal(night.length, 7);
});

test('a cron expression is followed in its time zone: 02:30 on the spring DST day (which has no 02:30) runs at 03:30 local', () => {
  const schedule: MonitorSchedule = { timezone: 'Europe/Berlin', cron: '30 2 * * *' };
  const due = slots({ id: 'cron', intervalMinutes: 5, schedule }, at('2026-03-27T00:00:00Z'), 4);
  assert.deepEqual(
    due.map((d) => d.toISOString()),
    ['2026-03-27T01:30:00.000Z', '2026-03-28T01:30:00.000Z', '2026-03-29T01:30:00.000Z', '2026-03-30T00:30:00.000Z'],
  );
});

test('jitter moves each slot by a stable 0 to jitter_seconds, the same for the same monitor and slot', () => {
  const schedule: MonitorSchedule = { timezone: 'UTC', cron: '0 * * * *', jitter_seconds: 300 };
  const jittered = slots({ id: 'j', intervalMinutes: 60, schedule }, at('2026-05-01T00:00:00Z'), 24);
  const again = slots({ id: 'j', intervalMinutes: 60, schedule }, at('2026-05-01T00:00:00Z'), 24);
  assert.deepEqual(jittered, again);
  // Each slot of this hourly cron is its hour plus the shift.
  const shifts = jittered.map((d) => (d.getTime() % (60 * MINUTE)) / 1000);
  assert.equal(new Set(jittered.map((d) => d.getUTCHours())).size, 24, 'one slot per hour');
  for (const shift of shifts) assert.ok(shift >= 0 && shift <= 300, `shift ${shift}`);
  assert.ok(new Set(shifts).size > 1, 'the shifts differ from slot to slot');
});

test('after a capture off the schedule the next check is the first slot at least the interval later', () => {
  const schedule: MonitorSchedule = { timezone: 'UTC', cron: '0,10,20,30,40,50 * * * *' };
  const cadence = cadenceOf({ id: 'gap', intervalMinutes: 15, schedule });
  // A manual check at 10:02: 10:10 would be 8 minutes later, 10:20 is the first at least 15.
  assert.deepEqual(cadence.nextAfterCapture(null, at('2026-05-01T10:02:00Z')), at('2026-05-01T10:20:00Z'));
  // Served on its slot: the next occurrence, and it waits if the capture came late to that slot.
  assert.deepEqual(cadence.nextAfterCapture(at('2026-05-01T10:10:00Z'), at('2026-05-01T10:10:20Z')), at('2026-05-01T10:20:00Z'));
  assert.equal(cadence.slotWaits(at('2026-05-01T10:20:00Z'), at('2026-05-01T10:10:20Z'), at('2026-05-01T10:20:00Z')), true);
});

test('resuming outside the active hours waits for the window; inside it, the check comes soon', () => {
  const schedule: MonitorSchedule = { timezone: 'UTC', hours: { from: 9, to: 17 } };
  const cadence = cadenceOf({ id: 'resume', intervalMinutes: 60, schedule });
  const night = cadence.afterReconfiguring(at('2026-05-01T03:00:00Z'), null);
  assert.equal(night.getUTCHours(), 9);
  const day = cadence.afterReconfiguring(at('2026-05-01T11:00:00Z'), null);
  assert.ok(day.getTime() - at('2026-05-01T11:00:00Z').getTime() < MINUTE);
});

test('a cron firing more often than the plan minimum, never, not parsing, or not of 5 fields is a problem of schedule.cron', () => {
  const now = at('2026-05-01T00:00:00Z');
  const problem = (schedule: MonitorSchedule, interval = 5, minimum = 5) => scheduleProblems(schedule, interval, minimum, now);
  assert.deepEqual(
    problem({ timezone: 'UTC', cron: '*/2 * * * *' }).map((p) => p.field),
    ['schedule.cron'],
  );
  assert.match(problem({ timezone: 'UTC', cron: '*/2 * * * *' })[0]!.message, /2 minutes apart/);
  // Its shortest gap, not its usual one: 09:00 and 09:03 on weekdays.
  assert.equal(cronShortestGapMinutes('0,3 9 * * 1-5', now), 3);
  assert.deepEqual(problem({ timezone: 'UTC', cron: '0 0 30 2 *' })[0]!.message, 'never fires');
  assert.equal(problem({ timezone: 'UTC', cron: '0 0 * *' })[0]!.field, 'schedule.cron');
  // Five fields exactly: croner's seconds field (a sixth) is not taken.
  assert.match(problem({ timezone: 'UTC', cron: '0 0 9 * * 1-5' })[0]!.message, /^not a 5-field cron expression/);
  assert.deepEqual(problem({ timezone: 'UTC', cron: '0 9 * * 1-5' }), []);
});

test('a schedule is refused with a reason per field: time zone, cron with days, a window shorter than the interval, too much jitter', () => {
  const now = at('2026-05-01T00:00:00Z');
  const fields = (schedule: MonitorSchedule, interval = 60) => scheduleProblems(schedule, interval, 5, now).map((p) => p.field);
  assert.deepEqual(fields({ timezone: 'Mars/Olympus', days: ['mon'] }), ['schedule.timezone']);
  assert.deepEqual(fields({ timezone: 'UTC', cron: '0 9 * * *', days: ['mon'] }), ['schedule.cron']);
  assert.deepEqual(fields({ timezone: 'UTC' }), ['schedule']);
  assert.deepEqual(fields({ timezone: 'UTC', hours: { from: 9, to: 10 } }, 120), ['interval_minutes']);
  assert.deepEqual(fields({ timezone: 'UTC', hours: { from: 9, to: 9 } }), ['schedule.hours']);
  assert.deepEqual(fields({ timezone: 'UTC', days: ['sat', 'sun'], jitter_seconds: 3600 }), ['schedule.jitter_seconds']);
  assert.deepEqual(fields({ timezone: 'UTC', days: ['sat', 'sun'], jitter_seconds: 600 }), []);
});
