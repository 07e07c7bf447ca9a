import { WEEKDAYS, windowMinutes, type MonitorSchedule } from '../monitor-schedule.ts';
import { isTimeZone } from '../time-zones.ts';

// changedetection.io's scheduler (time_schedule_limit: {enabled, timezone,
// monday: {enabled, start_time "HH:MM", duration {hours, minutes}}, …}) as a
// monitor's schedule. It has a window per weekday; pagewatch has one set of
// active hours for its days, in whole hours. A scheduler that fits is carried
// over; one that does not is named as not carried over, and the monitor
// checks around the clock.

const DAY_NAMES = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'] as const;

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A whole number from changedetection.io's form values, which it keeps as strings or numbers. */
function count(value: unknown): number | null {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof n === 'number' && Number.isInteger(n) && n >= 0 ? n : null;
}

interface DayWindow {
  startMinute: number;
  minutes: number;
}

function windowOf(day: Json): DayWindow | null {
  const start = typeof day.start_time === 'string' ? /^(\d{1,2}):(\d{2})$/.exec(day.start_time.trim()) : null;
  const duration = isObject(day.duration) ? day.duration : {};
  const hours = count(duration.hours ?? 0);
  const minutes = count(duration.minutes ?? 0);
  if (!start || hours === null || minutes === null) return null;
  return { startMinute: Number(start[1]) * 60 + Number(start[2]), minutes: hours * 60 + minutes };
}

/**
 * The schedule of a watch's enabled scheduler, or null (none, or one that
 * does not fit, with the reason added to notCarried). `fallbackTimezone` is
 * the installation's, which the scheduler uses when it names none.
 */
export function scheduleFromChangedetection(
  limit: unknown,
  fallbackTimezone: string,
  intervalMinutes: number | null,
  notCarried: string[],
): MonitorSchedule | null {
  if (!isObject(limit) || limit.enabled !== true) return null;
  const drop = (why: string) => {
    notCarried.push(`its check schedule: ${why}; the monitor checks around the clock`);
    return null;
  };
  const timezone = typeof limit.timezone === 'string' && limit.timezone.trim() !== '' ? limit.timezone.trim() : fallbackTimezone;
  if (!isTimeZone(timezone)) return drop(`${timezone} is not an IANA time zone`);
  const enabled = WEEKDAYS.filter((_, i) => isObject(limit[DAY_NAMES[i]!]) && (limit[DAY_NAMES[i]!] as Json).enabled === true);
  if (enabled.length === 0) return drop('no day is enabled');
  const windows = enabled.map((d) => windowOf(limit[DAY_NAMES[WEEKDAYS.indexOf(d)]!] as Json));
  const first = windows[0];
  if (!first || windows.some((w) => w === null)) return drop('a day has no start time or duration');
  if (windows.some((w) => w!.startMinute !== first.startMinute || w!.minutes !== first.minutes)) {
    return drop('its days have different hours, pagewatch has one set of active hours for all days');
  }
  if (first.startMinute % 60 !== 0 || first.minutes % 60 !== 0 || first.minutes === 0) {
    return drop('its hours do not start and end on the hour');
  }
  const from = first.startMinute / 60;
  const length = Math.min(first.minutes / 60, 24);
  const schedule: MonitorSchedule = {
    timezone,
    ...(enabled.length < WEEKDAYS.length ? { days: enabled } : {}),
    // to ≤ from: the window runs past midnight, as changedetection.io's does.
    ...(length < 24 ? { hours: { from, to: from + length > 24 ? from + length - 24 : from + length } } : {}),
  };
  if (schedule.days === undefined && schedule.hours === undefined) return null;
  if (intervalMinutes !== null && windowMinutes(schedule) < intervalMinutes) {
    return drop(`its ${length} active hours a day are shorter than its interval of ${intervalMinutes} minutes`);
  }
  return schedule;
}
