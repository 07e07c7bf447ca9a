// Both stores keep statements prepared (named) so the server plans each once
// rather than on every run; only statements that plan are worth it (a utility
// statement such as VACUUM or SET is not).
const PLANNED = /^\s*(select|with|insert|update|delete)\b/i;

export function isPreparable(sql: string): boolean {
  return PLANNED.test(sql);
}
