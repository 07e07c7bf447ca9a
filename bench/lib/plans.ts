import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parsePlans, type Plans } from '../../src/domain/plans.ts';

// Plan limits raised for benchmarks (DESIGN §7): allowances and rate limits
// would otherwise stop a benchmark long before it measures anything.

export const BENCH_PLAN_OVERRIDES = {
  pro: {
    requests_per_minute: 100_000_000,
    requests_per_day: 1_000_000_000,
    read_bytes_per_day: 1_000_000_000_000,
    monitors: 1_000_000,
    min_interval_minutes: { html: 1, browser: 1 },
    checks_per_month: { html: 1_000_000_000, browser: 1_000_000_000 },
  },
};

export const benchPlans = (): Plans => parsePlans(BENCH_PLAN_OVERRIDES);

/** The same overrides as a PAGEWATCH_PLANS_FILE for child processes. */
export function writeBenchPlansFile(): string {
  const path = join(tmpdir(), `pagewatch-bench-plans-${process.pid}.json`);
  writeFileSync(path, JSON.stringify(BENCH_PLAN_OVERRIDES));
  return path;
}
