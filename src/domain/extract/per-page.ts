import type { ParsedPage } from './parse-page.ts';

// Facts of a whole page that several targets of one check read (its title's
// areas, its structured data): found once per parsed page and kept on the
// page itself, so they go with it (kept in a WeakMap keyed by pages, garbage
// collection took about three times as long per real page: scavenges kept
// copying them). Callers treat what they get as read-only.

export function perPage<T>(page: ParsedPage, key: string, find: () => T): T {
  const found = page.found;
  if (!found.has(key)) found.set(key, find());
  return found.get(key) as T;
}
