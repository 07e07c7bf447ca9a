import type { Plan } from '../domain/plans.ts';

// The monitor forms' proxy choice (issue #41): the operator's outbound
// proxies the account's plan may use. None offered: the forms leave the
// field out, and a monitor's stored proxy is left as it is.

/** The proxy names a form offers, sorted; empty when the operator has none or the plan has no proxies. */
export function offeredProxies(configured: ReadonlySet<string>, plan: Plan): string[] {
  return plan.proxies ? [...configured].sort() : [];
}
