import { AppError } from '../errors.ts';
import type { Plan } from '../domain/plans.ts';

// Which of the operator's outbound proxies a monitor or preview may load
// through (DESIGN §5 Outbound proxies): one the operator configured, on a
// plan that allows proxies.

/** The proxy name to store or load through (null: directly); 422 proxy_unknown or proxy_not_allowed otherwise. */
export function chooseProxy(configured: ReadonlySet<string>, plan: Plan, name: string | null | undefined, field = 'proxy'): string | null {
  if (name === undefined || name === null) return null;
  if (!configured.has(name)) {
    const known = configured.size === 0 ? 'this server has no proxies' : `known: ${[...configured].sort().join(', ')}`;
    throw new AppError('proxy_unknown', `no proxy named ${name}; ${known}`, { details: [{ field, message: `no proxy named ${name}` }] });
  }
  if (!plan.proxies) {
    throw new AppError('proxy_not_allowed', "the account's plan does not include outbound proxies", {
      details: [{ field, message: "the account's plan does not include outbound proxies" }],
    });
  }
  return name;
}
