// When email digests close (DESIGN §8 Digests): daily at the account's hour in
// its time zone, weekly at that hour on Mondays. A period ends at such a
// boundary; the digest of a period goes out once the engine's clock passes it.

export const EMAIL_MODES = ['each', 'daily', 'weekly'] as const;
export type EmailMode = (typeof EMAIL_MODES)[number];
export type DigestMode = Exclude<EmailMode, 'each'>;

export function isEmailMode(value: string): value is EmailMode {
  return (EMAIL_MODES as readonly string[]).includes(value);
}

const MONDAY = 1;

interface LocalTime {
  year: number;
  month: number;
  day: number;
  hour: number;
}

function localTime(at: Date, timeZone: string): LocalTime {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
  }).formatToParts(at);
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return {
    year: Number(part('year')),
    month: Number(part('month')),
    day: Number(part('day')),
    hour: Number(part('hour')),
  };
}

/** The instant a local date's hour begins in the zone; an hour a clock change skips is taken an hour later. */
function instantOf(year: number, month: number, day: number, hour: number, timeZone: string): Date {
  const wall = Date.UTC(year, month - 1, day, hour);
  // Two rounds find the offset in force at that wall time, across a clock change too.
  let guess = wall;
  for (let round = 0; round < 2; round++) {
    const local = localTime(new Date(guess), timeZone);
    const shown = Date.UTC(local.year, local.month - 1, local.day, local.hour);
    guess += wall - shown;
  }
  return new Date(guess);
}

/** The latest digest boundary at or before `now`: the period that ended there is the one to send. */
export function latestDigestBoundary(now: Date, mode: DigestMode, timeZone: string, hour: number): Date {
  const today = localTime(now, timeZone);
  // Calendar days counted back from the local date, in UTC arithmetic (no clock change there).
  for (let back = 0; ; back++) {
    const date = new Date(Date.UTC(today.year, today.month - 1, today.day - back));
    if (mode === 'weekly' && date.getUTCDay() !== MONDAY) continue;
    const boundary = instantOf(date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate(), hour, timeZone);
    if (boundary <= now) return boundary;
  }
}
