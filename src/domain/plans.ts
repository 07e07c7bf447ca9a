// Plan limits are data (DESIGN §7). The pro defaults are the specification's
// numbers; PAGEWATCH_PLANS_FILE deep-merges overrides over them.

export interface Plan {
  api_access: boolean;
  requests_per_minute: number;
  requests_per_day: number;
  read_bytes_per_day: number;
  tokens: number;
  /** active Atom feed tokens (DESIGN §8 Feeds) */
  feed_tokens: number;
  /** reads of one feed token per hour, 304s included */
  feed_reads_per_hour: number;
  /** notification channels (DESIGN §8 Channels) */
  channels: number;
  monitors: number;
  targets_per_monitor: number;
  /** browser steps of one monitor or preview (issue #42) */
  steps_per_monitor: number;
  /** secrets of one account, typed by steps */
  secrets: number;
  min_interval_minutes: { html: number; browser: number };
  previews_per_month: number;
  previews_per_day: number;
  preview_spacing_seconds: number;
  manual_checks_per_day: number;
  checks_per_month: { html: number; browser: number };
  notifications_per_month: { email: number; webhook: number };
  retention_days: number;
  idempotency_keys_per_day: number;
  /** whether monitors and previews may load through the operator's outbound proxies (DESIGN §5) */
  proxies: boolean;
}

/**
 * Links a links target watches at most, on every plan: each link of its
 * selection up to this many (past it the target reports links_too_many rather
 * than watch an arbitrary part). The specification's ten is what an evaluate
 * answer shows, not what a monitor watches.
 */
export const MAX_WATCHED_LINKS = 1000;

export const PLAN_NAMES = ['pro', 'free'] as const;
export type PlanName = (typeof PLAN_NAMES)[number];
export type Plans = Record<PlanName, Plan>;

const PRO: Plan = {
  api_access: true,
  requests_per_minute: 60,
  requests_per_day: 5000,
  read_bytes_per_day: 104857600,
  tokens: 5,
  feed_tokens: 10,
  feed_reads_per_hour: 60,
  channels: 10,
  monitors: 100,
  targets_per_monitor: 3,
  steps_per_monitor: 20,
  secrets: 20,
  min_interval_minutes: { html: 5, browser: 15 },
  previews_per_month: 150,
  previews_per_day: 40,
  preview_spacing_seconds: 35,
  manual_checks_per_day: 20,
  checks_per_month: { html: 60000, browser: 6000 },
  notifications_per_month: { email: 1000, webhook: 10000 },
  retention_days: 90,
  idempotency_keys_per_day: 1000,
  proxies: true,
};

// Free accounts use the website only; the API answers them 403 pro_required.
const FREE: Plan = {
  ...PRO,
  api_access: false,
  tokens: 0,
  feed_tokens: 0,
  channels: 0,
  monitors: 5,
  min_interval_minutes: { html: 60, browser: 240 },
  previews_per_month: 30,
  previews_per_day: 10,
  manual_checks_per_day: 5,
  checks_per_month: { html: 5000, browser: 0 },
  notifications_per_month: { email: 100, webhook: 0 },
  retention_days: 30,
  proxies: false,
};

export const DEFAULT_PLANS: Plans = { pro: PRO, free: FREE };

export function isPlanName(value: unknown): value is PlanName {
  return typeof value === 'string' && (PLAN_NAMES as readonly string[]).includes(value);
}

function mergeStrict(base: unknown, override: unknown, path: string): unknown {
  if (typeof base === 'object' && base !== null) {
    if (typeof override !== 'object' || override === null || Array.isArray(override)) {
      throw new Error(`${path} must be an object`);
    }
    const result: Record<string, unknown> = { ...(base as Record<string, unknown>) };
    for (const [key, value] of Object.entries(override)) {
      if (!(key in result)) throw new Error(`unknown key ${path}.${key}`);
      result[key] = mergeStrict(result[key], value, `${path}.${key}`);
    }
    return result;
  }
  if (typeof base === 'boolean') {
    if (typeof override !== 'boolean') throw new Error(`${path} must be true or false`);
    return override;
  }
  if (typeof override !== 'number' || !Number.isInteger(override) || override < 0) {
    throw new Error(`${path} must be a whole number ≥ 0`);
  }
  return override;
}

/** Deep-merges overrides over the defaults; an unknown key or a wrong type throws. */
export function parsePlans(overrides: unknown): Plans {
  return mergeStrict(DEFAULT_PLANS, overrides, 'plans') as Plans;
}
