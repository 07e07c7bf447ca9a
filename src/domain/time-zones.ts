// Account time zones: IANA names, as the platform's time zone database knows them.

export const DEFAULT_TIME_ZONE = 'UTC';

/** Whether `name` is an IANA time zone name (e.g. "Europe/Berlin", "UTC"), as spelt in the database. */
export function isTimeZone(name: string): boolean {
  return name === DEFAULT_TIME_ZONE || Intl.supportedValuesOf('timeZone').includes(name);
}

/** An instant as people read it in a time zone, e.g. "27 Nov 2026, 14:03 CET (Europe/Berlin)". */
export function formatInstant(at: Date, timeZone: string): string {
  const shown = new Intl.DateTimeFormat('en-GB', {
    timeZone,
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    timeZoneName: 'short',
  }).format(at);
  return timeZone === DEFAULT_TIME_ZONE ? shown : `${shown} (${timeZone})`;
}

/** Every name isTimeZone accepts, UTC first and the rest in alphabetical order: the choices a form offers. */
export function timeZoneNames(): string[] {
  return [DEFAULT_TIME_ZONE, ...Intl.supportedValuesOf('timeZone').filter((name) => name !== DEFAULT_TIME_ZONE)];
}
