import type { FastifyRequest } from 'fastify';
import { WEEKDAYS, type MonitorSchedule, type Weekday } from '../domain/monitor-schedule.ts';
import { DEFAULT_TIME_ZONE } from '../domain/time-zones.ts';
import { field, fields } from './form.ts';

// The monitor form's schedule (issue #41): around the clock, active days and
// hours, or a cron expression, as typed, and the API's `schedule` built from
// it (only the fields the chosen kind uses).

export type ScheduleKind = 'always' | 'hours' | 'cron';

export interface ScheduleInput {
  kind: ScheduleKind;
  days: Weekday[];
  from: string;
  to: string;
  cron: string;
  timezone: string;
  jitter: string;
}

export function emptySchedule(): ScheduleInput {
  return { kind: 'always', days: [...WEEKDAYS], from: '9', to: '17', cron: '', timezone: DEFAULT_TIME_ZONE, jitter: '' };
}

/** A monitor's schedule as the form shows it, so editing starts from it. */
export function scheduleInput(schedule: MonitorSchedule | null): ScheduleInput {
  if (schedule === null) return emptySchedule();
  return {
    kind: schedule.cron !== undefined ? 'cron' : 'hours',
    days: schedule.days ?? [...WEEKDAYS],
    from: schedule.hours ? String(schedule.hours.from) : '0',
    to: schedule.hours ? String(schedule.hours.to) : '24',
    cron: schedule.cron ?? '',
    timezone: schedule.timezone,
    jitter: schedule.jitter_seconds ? String(schedule.jitter_seconds) : '',
  };
}

export function readScheduleInput(request: FastifyRequest): ScheduleInput {
  const kind = field(request, 'schedule');
  return {
    kind: kind === 'hours' || kind === 'cron' ? kind : 'always',
    days: WEEKDAYS.filter((day) => fields(request, 'days').includes(day)),
    from: field(request, 'hours_from').trim(),
    to: field(request, 'hours_to').trim(),
    cron: field(request, 'cron').trim(),
    timezone: field(request, 'timezone').trim() || DEFAULT_TIME_ZONE,
    jitter: field(request, 'jitter_seconds').trim(),
  };
}

/**
 * The API's schedule, or null for around the clock. Numbers stay as typed
 * when they are not numbers, so the API's validation names the field. Hours
 * 0 to 24 on every day is written as days alone (the whole day).
 */
export function toSchedule(input: ScheduleInput): MonitorSchedule | null {
  if (input.kind === 'always') return null;
  const jitter = input.jitter === '' ? {} : { jitter_seconds: Number(input.jitter) };
  if (input.kind === 'cron') return { timezone: input.timezone, cron: input.cron, ...jitter };
  const wholeDay = input.from === '0' && input.to === '24';
  return {
    timezone: input.timezone,
    days: input.days,
    ...(wholeDay ? {} : { hours: { from: Number(input.from), to: Number(input.to) } }),
    ...jitter,
  };
}
