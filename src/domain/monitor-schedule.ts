import { Cron } from 'croner';
import { isTimeZone } from './time-zones.ts';

// A monitor's optional schedule (issue #41): either active days and hours in
// an IANA time zone, or a 5-field cron expression in one; optionally a stable
// jitter. This module says what a schedule means (the active minutes, the
// cron occurrences) and what makes one invalid; cadence.ts places the checks.

export const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** The monitor field `schedule`, as the API takes and shows it and the store keeps it. */
export interface MonitorSchedule {
  timezone: string;
  days?: Weekday[];
  /** whole hours, from inclusive to exclusive; to ≤ from wraps past midnight (the night belongs to the day it began) */
  hours?: { from: number; to: number };
  cron?: string;
  jitter_seconds?: number;
}

/** A field of the schedule and what is wrong with it, as the API's error details name them. */
export interface ScheduleProblem {
  field: string;
  message: string;
}

/** Occurrences a cron expression's shortest gap is measured over, at most. */
export const CRON_GAP_SAMPLE = 2000;
/** …and at most this far ahead, so that a yearly expression ends the scan. */
const CRON_GAP_HORIZON_MS = 400 * 24 * 3600 * 1000;
const MINUTE_MS = 60_000;

/** Croner in strict 5-field form, in the schedule's time zone (croner follows DST: a local time that does not exist runs at the first that does). */
export function cronIn(pattern: string, timezone: string): Cron {
  return new Cron(pattern, { timezone, mode: '5-part' });
}

/**
 * The active minutes of a days/hours schedule as cron patterns (any match is
 * active). A window that wraps midnight is two patterns: the evening on its
 * days and the early hours on the days after them.
 */
export function activePatterns(schedule: MonitorSchedule): string[] {
  const days = schedule.days ?? [...WEEKDAYS];
  const dayList = (shift: number) => days.map((d) => (WEEKDAYS.indexOf(d) + shift) % 7).join(',');
  const { hours } = schedule;
  if (hours === undefined) return [`* * * * ${dayList(0)}`];
  if (hours.to > hours.from) return [`* ${hours.from}-${hours.to - 1} * * ${dayList(0)}`];
  const evening = `* ${hours.from}-23 * * ${dayList(0)}`;
  return hours.to === 0 ? [evening] : [evening, `* 0-${hours.to - 1} * * ${dayList(1)}`];
}

/** Minutes a days/hours window stays open (a whole day without hours). */
export function windowMinutes(schedule: MonitorSchedule): number {
  const { hours } = schedule;
  if (hours === undefined) return 24 * 60;
  return ((hours.to - hours.from + 24) % 24 || 24) * 60;
}

/**
 * The shortest gap between two occurrences of a cron expression in minutes,
 * over its next CRON_GAP_SAMPLE occurrences (and at most 400 days) after
 * `from`, measured in wall-clock time; null when it fires fewer than twice.
 * Wall-clock time, because the time zone's DST changes move single
 * occurrences, not the pattern, and the interval rule (a capture at least
 * interval_minutes after the previous one) holds on those days anyway.
 */
export function cronShortestGapMinutes(pattern: string, from: Date): number | null {
  const cron = new Cron(pattern, { utcOffset: 0, mode: '5-part' });
  const end = from.getTime() + CRON_GAP_HORIZON_MS;
  let previous = cron.nextRun(from);
  let shortest: number | null = null;
  for (let i = 1; previous !== null && i < CRON_GAP_SAMPLE; i++) {
    const next = cron.nextRun(previous);
    if (next === null || next.getTime() > end) break;
    const gap = (next.getTime() - previous.getTime()) / MINUTE_MS;
    if (shortest === null || gap < shortest) shortest = gap;
    previous = next;
  }
  return shortest;
}

/**
 * What is wrong with a schedule for a monitor checked every `intervalMinutes`
 * with a plan minimum of `minimumMinutes`: an unknown time zone, a cron
 * expression that does not parse, never fires or fires more often than the
 * minimum, a window shorter than the interval (some windows would hold no
 * check), jitter of an interval or more (it would reorder checks).
 */
export function scheduleProblems(schedule: MonitorSchedule, intervalMinutes: number, minimumMinutes: number, now: Date): ScheduleProblem[] {
  const problems: ScheduleProblem[] = [];
  if (!isTimeZone(schedule.timezone)) {
    return [{ field: 'schedule.timezone', message: `not an IANA time zone name: ${schedule.timezone}` }];
  }
  const windowed = schedule.days !== undefined || schedule.hours !== undefined;
  if (schedule.cron !== undefined && windowed) {
    problems.push({ field: 'schedule.cron', message: 'either cron, or days and hours, not both' });
  } else if (schedule.cron === undefined && !windowed) {
    problems.push({ field: 'schedule', message: 'needs cron, or days and/or hours' });
  }
  let shortestGap = intervalMinutes;
  if (schedule.cron !== undefined) {
    const gap = cronGap(schedule.cron, now);
    if (typeof gap === 'string') problems.push({ field: 'schedule.cron', message: gap });
    else if (gap !== null && gap < minimumMinutes) {
      problems.push({ field: 'schedule.cron', message: `fires ${gap} minutes apart; the plan's minimum interval is ${minimumMinutes}` });
    } else if (gap !== null) shortestGap = gap;
  }
  if (schedule.hours !== undefined && schedule.hours.from === schedule.hours.to % 24) {
    problems.push({ field: 'schedule.hours', message: 'from and to are the same hour; leave hours out for the whole day' });
  } else if (windowed && windowMinutes(schedule) < intervalMinutes) {
    problems.push({
      field: 'interval_minutes',
      message: `the active hours (${windowMinutes(schedule)} minutes a day) are shorter than the interval`,
    });
  }
  const jitter = schedule.jitter_seconds ?? 0;
  if (jitter >= Math.min(intervalMinutes, shortestGap) * 60) {
    problems.push({ field: 'schedule.jitter_seconds', message: 'must be less than the interval between checks' });
  }
  return problems;
}

/** The cron's shortest gap, null when it fires once at most, or why it is not a cron expression. */
function cronGap(pattern: string, now: Date): number | null | string {
  try {
    cronIn(pattern, 'UTC');
  } catch (err) {
    return `not a 5-field cron expression: ${(err as Error).message}`;
  }
  const gap = cronShortestGapMinutes(pattern, now);
  if (gap === null && new Cron(pattern, { utcOffset: 0, mode: '5-part' }).nextRun(now) === null) return 'never fires';
  return gap;
}
