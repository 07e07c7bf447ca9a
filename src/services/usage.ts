import type { Clock } from '../clock.ts';
import type { RequestLimiter } from './request-limits.ts';
import { METRICS, type Metric } from '../domain/usage-metrics.ts';
import type { Database } from '../store/database.ts';
import { readCounters } from '../store/counters-store.ts';
import { countActiveTokens } from '../store/tokens-store.ts';
import { countMonitors } from '../store/monitors-store.ts';
import { periodEnd, periodStart } from '../domain/periods.ts';
import type { Principal } from './tokens.ts';

export interface Allowance {
  limit: number;
  used: number;
  period_start: string;
  resets_at: string;
}

export interface Usage {
  api: {
    minute: { limit: number; remaining: number; reset: number };
    day: Allowance;
    read_bytes: Allowance;
    manual_checks: Allowance;
  };
  previews: { day: Allowance; month: Allowance };
  checks: { html: Allowance; browser: Allowance };
  notifications: { email: Allowance; webhook: Allowance };
  monitors: { limit: number; used: number };
  tokens: { limit: number; active: number };
}

/** Allowances and current usage of the principal's account (GET /usage). */
export async function getUsage(deps: { db: Database; clock: Clock; limiter: RequestLimiter }, principal: Principal): Promise<Usage> {
  const now = deps.clock.now();
  const { plan, accountId } = principal;
  // The API counters as the limiter counts them (some may not be in the store yet), the others from the store.
  const { state: limits, requestsUsed, readBytesUsed } = await deps.limiter.peek(principal);
  const metrics = Object.values(METRICS);
  const values = await readCounters(
    deps.db,
    accountId,
    metrics.map((m) => ({ metric: m.name, periodStart: periodStart(m, now) })),
  );
  values.set(METRICS.apiRequests.name, requestsUsed);
  values.set(METRICS.readBytes.name, readBytesUsed);
  const allowance = (metric: Metric, limit: number): Allowance => ({
    limit,
    used: values.get(metric.name) ?? 0,
    period_start: periodStart(metric, now).toISOString(),
    resets_at: periodEnd(metric, now).toISOString(),
  });
  return {
    api: {
      minute: { limit: limits.minuteLimit, remaining: limits.minuteRemaining, reset: limits.minuteReset },
      day: allowance(METRICS.apiRequests, plan.requests_per_day),
      read_bytes: allowance(METRICS.readBytes, plan.read_bytes_per_day),
      manual_checks: allowance(METRICS.manualChecks, plan.manual_checks_per_day),
    },
    previews: {
      day: allowance(METRICS.previewsDay, plan.previews_per_day),
      month: allowance(METRICS.previewsMonth, plan.previews_per_month),
    },
    checks: {
      html: allowance(METRICS.checksHtml, plan.checks_per_month.html),
      browser: allowance(METRICS.checksBrowser, plan.checks_per_month.browser),
    },
    notifications: {
      email: allowance(METRICS.notificationsEmail, plan.notifications_per_month.email),
      webhook: allowance(METRICS.notificationsWebhook, plan.notifications_per_month.webhook),
    },
    monitors: { limit: plan.monitors, used: await countMonitors(deps.db, accountId) },
    tokens: { limit: plan.tokens, active: await countActiveTokens(deps.db, accountId, now) },
  };
}
