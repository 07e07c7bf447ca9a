import type { Cron } from 'croner';
import { activePatterns, cronIn, type MonitorSchedule } from './monitor-schedule.ts';
import {
  dueAfterReconfiguring,
  hash32,
  initialDueAt,
  nextDueAfterCapture,
  nextDueAt,
  slotWaitsForInterval,
  stableOffsetSeconds,
} from './schedule.ts';

// When a monitor is checked: its cadence. Without a schedule that is
// schedule.ts's interval slots (o + k·P), unchanged. With a schedule the same
// rules apply to another set of slots:
// * days/hours: the interval slots that fall in an active minute of the
//   schedule's time zone (checked by croner, so DST days are the local
//   clock's); the window is at least an interval long (scheduleProblems), so
//   every window holds a slot;
// * cron: the expression's occurrences in its time zone.
// Jitter moves every slot by a stable number of seconds in [0, jitter] (a
// hash of the monitor and the slot), less than the gap between slots, so it
// spreads monitors that share a schedule without reordering their slots.
// The interval stays a minimum between captures: a slot reached sooner than
// interval_minutes after the previous capture waits (slotWaitsForInterval).

export interface CadenceMonitor {
  id: string;
  intervalMinutes: number;
  schedule: MonitorSchedule | null;
}

export interface Cadence {
  /** the next slot strictly after both the slot just served (or the stored due time) and `now` */
  nextDue(previousDueAt: Date, now: Date): Date;
  /** the due time after a capture at `capturedAt`; `servedSlot` the slot a scheduled check served */
  nextAfterCapture(servedSlot: Date | null, capturedAt: Date): Date;
  /** whether a due slot waits because the previous capture was less than an interval before */
  slotWaits(slot: Date, lastCapturedAt: Date | null, now: Date): boolean;
  /** the due time after a resume or a new configuration */
  afterReconfiguring(now: Date, lastCapturedAt: Date | null): Date;
}

/** The set of instants a scheduled monitor is checked at. */
interface Slots {
  atOrAfter(at: Date): Date;
  isSlot(at: Date): boolean;
}

const MINUTE_MS = 60_000;
// A window at least an interval long holds a slot; DST days and jitter may need one more step.
const MAX_WINDOW_STEPS = 16;

export function cadenceOf(monitor: CadenceMonitor): Cadence {
  const { id, intervalMinutes: interval, schedule } = monitor;
  const offset = stableOffsetSeconds(id, interval);
  if (schedule === null) {
    return {
      nextDue: (previous, now) => nextDueAt(previous, interval, offset, now),
      nextAfterCapture: (served, captured) => nextDueAfterCapture(served, captured, interval, offset),
      slotWaits: (slot, last, now) => slotWaitsForInterval(slot, last, interval, offset, now),
      afterReconfiguring: (now, last) => dueAfterReconfiguring(id, now, last, interval),
    };
  }
  const periodMs = interval * MINUTE_MS;
  const base = schedule.cron !== undefined ? cronSlots(cronIn(schedule.cron, schedule.timezone)) : windowSlots(schedule, periodMs, offset);
  const slots = jittered(base, id, schedule.jitter_seconds ?? 0);
  const after = (at: Date) => slots.atOrAfter(new Date(at.getTime() + 1));
  return {
    nextDue: (previous, now) => after(previous > now ? previous : now),
    nextAfterCapture: (served, captured) =>
      served !== null && slots.isSlot(served)
        ? after(served > captured ? served : captured)
        : slots.atOrAfter(new Date(captured.getTime() + periodMs)),
    slotWaits: (slot, last, now) => last !== null && slots.isSlot(slot) && now.getTime() < last.getTime() + periodMs,
    // Soon only when the schedule is open then (never between cron occurrences), else its next slot.
    afterReconfiguring: (now, last) => {
      const soon = initialDueAt(id, now);
      const earliest = last === null ? soon : new Date(Math.max(soon.getTime(), last.getTime() + periodMs));
      if (schedule.cron === undefined && earliest.getTime() === soon.getTime() && isActive(schedule, soon)) return soon;
      return slots.atOrAfter(earliest);
    },
  };
}

function cronSlots(cron: Cron): Slots {
  return {
    atOrAfter: (at) => cron.nextRun(new Date(at.getTime() - 1)) ?? NEVER,
    isSlot: (at) => at.getTime() % MINUTE_MS === 0 && cron.match(at),
  };
}

/** The interval slots in the schedule's active minutes. */
function windowSlots(schedule: MonitorSchedule, periodMs: number, offsetSeconds: number): Slots {
  const active = activePatterns(schedule).map((pattern) => cronIn(pattern, schedule.timezone));
  const offsetMs = offsetSeconds * 1000;
  const latticeAtOrAfter = (at: number) => offsetMs + Math.ceil((at - offsetMs) / periodMs) * periodMs;
  const isActiveAt = (at: number) => activeAt(active, at);
  return {
    atOrAfter(at) {
      let slot = latticeAtOrAfter(at.getTime());
      for (let step = 0; step < MAX_WINDOW_STEPS && !isActiveAt(slot); step++) {
        const opens = nextOpening(active, slot);
        if (opens === null) return NEVER;
        slot = latticeAtOrAfter(opens);
      }
      return new Date(slot);
    },
    isSlot: (at) => (at.getTime() - offsetMs) % periodMs === 0 && isActiveAt(at.getTime()),
  };
}

function isActive(schedule: MonitorSchedule, at: Date): boolean {
  const active = activePatterns(schedule).map((pattern) => cronIn(pattern, schedule.timezone));
  return activeAt(active, at.getTime());
}

function activeAt(active: Cron[], at: number): boolean {
  const minute = new Date(at - (at % MINUTE_MS));
  return active.some((cron) => cron.match(minute));
}

/** The first active minute after `at`. */
function nextOpening(active: Cron[], at: number): number | null {
  const opens = active.map((cron) => cron.nextRun(new Date(at))?.getTime() ?? Infinity);
  const first = Math.min(...opens);
  return Number.isFinite(first) ? first : null;
}

/** Each slot moved by its stable jitter; `jitterSeconds` is less than the gap between slots. */
function jittered(slots: Slots, monitorId: string, jitterSeconds: number): Slots {
  if (jitterSeconds <= 0) return slots;
  const shift = (slot: Date) => new Date(slot.getTime() + (hash32(`jitter:${monitorId}:${slot.getTime()}`) % (jitterSeconds + 1)) * 1000);
  const firstBaseFrom = (at: Date) => slots.atOrAfter(new Date(at.getTime() - jitterSeconds * 1000));
  return {
    atOrAfter(at) {
      let slot = firstBaseFrom(at);
      while (slot !== NEVER && shift(slot) < at) slot = slots.atOrAfter(new Date(slot.getTime() + 1));
      return slot === NEVER ? NEVER : shift(slot);
    },
    isSlot(at) {
      for (let slot = firstBaseFrom(at); slot !== NEVER && slot <= at; slot = slots.atOrAfter(new Date(slot.getTime() + 1))) {
        if (shift(slot).getTime() === at.getTime()) return true;
      }
      return false;
    },
  };
}

// A schedule that never fires again (a cron of a date that has passed) is due at the end of time.
const NEVER = new Date(8.64e15);
