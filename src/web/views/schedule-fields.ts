import { WEEKDAYS, type MonitorSchedule } from '../../domain/monitor-schedule.ts';
import { timeZoneNames } from '../../domain/time-zones.ts';
import { html, type SafeHtml } from '../html.ts';
import type { ScheduleInput } from '../schedule-form.ts';

// The monitor form's schedule fields: around the clock, active days and hours
// in a time zone, or a cron expression; jitter for either.

const DAY_NAMES: Record<(typeof WEEKDAYS)[number], string> = {
  sun: 'Sun',
  mon: 'Mon',
  tue: 'Tue',
  wed: 'Wed',
  thu: 'Thu',
  fri: 'Fri',
  sat: 'Sat',
};

export function scheduleFields(input: ScheduleInput): SafeHtml {
  const kind = (value: ScheduleInput['kind'], label: string) =>
    html`<div class="check"><input type="radio" id="schedule-${value}" name="schedule" value="${value}"${input.kind === value ? html` checked` : ''}><label for="schedule-${value}">${label}</label></div>`;
  return html`<div class="schedule">
${kind('always', 'Around the clock')}
${kind('hours', 'Only on these days and hours')}
<div class="field-row">
<div role="group" aria-label="Days">${WEEKDAYS.map(
    (day) =>
      html`<span class="check"><input type="checkbox" id="day-${day}" name="days" value="${day}"${input.days.includes(day) ? html` checked` : ''}><label for="day-${day}">${DAY_NAMES[day]}</label></span>`,
  )}</div>
<div><label for="hours-from">From (hour)</label><input id="hours-from" name="hours_from" type="number" min="0" max="23" value="${input.from}"></div>
<div><label for="hours-to">Until (hour)</label><input id="hours-to" name="hours_to" type="number" min="1" max="24" value="${input.to}" aria-describedby="hours-help">
<span class="help" id="hours-help">until at or before from: the hours run past midnight, e.g. 22 to 6</span></div>
</div>
${kind('cron', 'At the times of a cron expression')}
<div><label for="cron">Cron expression</label><input id="cron" name="cron" maxlength="120" value="${input.cron}" placeholder="0 9 * * 1-5" aria-describedby="cron-help">
<span class="help" id="cron-help">five fields: minute hour day month weekday; never more often than the plan's minimum interval</span></div>
<div class="field-row">
<div><label for="timezone">Time zone</label><select id="timezone" name="timezone">
${timeZoneNames().map((name) => html`<option value="${name}"${name === input.timezone ? html` selected` : ''}>${name.replaceAll('_', ' ')}</option>`)}
</select></div>
<div><label for="jitter">Jitter (seconds, optional)</label><input id="jitter" name="jitter_seconds" type="number" min="0" max="3600" value="${input.jitter}" aria-describedby="jitter-help">
<span class="help" id="jitter-help">moves each check by up to this much, so that many monitors do not fetch at the same second</span></div>
</div>
</div>`;
}

/** A schedule in words, e.g. "Mon, Tue 9:00–17:00 (Europe/Berlin)" or "cron 0 9 * * 1-5 (UTC)". */
export function describeSchedule(schedule: MonitorSchedule | null): string {
  if (schedule === null) return 'around the clock';
  const jitter = schedule.jitter_seconds ? `, jitter up to ${schedule.jitter_seconds} s` : '';
  if (schedule.cron !== undefined) return `cron ${schedule.cron} (${schedule.timezone})${jitter}`;
  const days = schedule.days && schedule.days.length < 7 ? schedule.days.map((d) => DAY_NAMES[d]).join(', ') : 'every day';
  const hours = schedule.hours ? ` ${schedule.hours.from}:00–${schedule.hours.to}:00` : '';
  return `${days}${hours} (${schedule.timezone})${jitter}`;
}
