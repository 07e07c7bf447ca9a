import type { ParsedPage } from './parse-page.ts';

// Facts of a whole page that several targets of one check read (its title's
// areas, its structured data): found once per parsed page. Callers treat what
// they get as read-only.

const byPage = new WeakMap<ParsedPage, Map<string, unknown>>();

export function perPage<T>(page: ParsedPage, key: string, find: () => T): T {
  let found = byPage.get(page);
  if (!found) byPage.set(page, (found = new Map<string, unknown>()));
  if (!found.has(key)) found.set(key, find());
  return found.get(key) as T;
}
