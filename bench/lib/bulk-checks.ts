import { randomUUID } from 'node:crypto';
import { DEFAULT_CHECK_LEASE_SECONDS } from '../../src/config.ts';
import type { Plan } from '../../src/domain/plans.ts';
import { nextDueAt, stableOffsetSeconds } from '../../src/domain/schedule.ts';
import { reserveChecks } from '../../src/store/procedures/check-allowance.ts';
import { writeLeases } from '../../src/store/check-leases-store.ts';
import type { Database } from '../../src/store/database.ts';
import { recordChecks } from '../../src/store/monitor-checks-store.ts';

// Healthy checks written in bulk with the engine's own statements, for
// store-size benchmarks at a size the engine cannot check in real time (a day
// at 100,000 monitors is 28.8 million checks). Each check writes, on its
// claim, its allowance reservation and its lease (reserveChecks, writeLeases,
// as claimWork does) and, on its commit, its narrow check state, its history
// row and the lease's release (recordChecks, as commitChecks does). That is
// all an unchanged page writes (no baseline, text, change or outbox row; a
// host without backoff no backoff row); the caller writes what a changed one
// adds (bench/lib/simulated-hour.ts). Not simulated: the loads, the claim's
// reads, and the batches' sizes (the engine commits at most 100 checks
// together; the rows written are the same).

export interface CheckedMonitor {
  id: string;
  accountId: string;
  host: string;
}

const BATCH = 2000;
/** What each simulated check records as its duration: a load of the scale benchmark's small pages. */
export const SIMULATED_CHECK_MS = 40;

/**
 * One check of every monitor at `at`, in batches of a claim's transaction and
 * a commit's transaction; `changes` holds the ids of the changes a monitor's
 * check found (unchanged when absent).
 */
export async function recordChecksInBulk(
  db: Database,
  monitors: CheckedMonitor[],
  options: { at: Date; intervalMinutes: number; plan: Plan; changes?: Map<string, string[]> },
): Promise<void> {
  const { at, intervalMinutes, plan } = options;
  for (let start = 0; start < monitors.length; start += BATCH) {
    const batch = monitors.slice(start, start + BATCH);
    const tokens = batch.map(() => randomUUID());
    await db.transaction(async (tx) => {
      const reservations = await reserveChecks(
        tx,
        batch.map((m) => ({ accountId: m.accountId, plan, mode: 'html' as const })),
        at,
      );
      await writeLeases(
        tx,
        batch.map((m, i) => ({
          monitor_id: m.id,
          token: tokens[i]!,
          host: m.host,
          lease_expires_at: new Date(at.getTime() + DEFAULT_CHECK_LEASE_SECONDS * 1000),
          attempt: 1,
          scheduled: true,
          manual_check_id: null,
          reserved_metric: reservations[i]?.metric ?? null,
          reserved_period: reservations[i]?.period ?? null,
          claimed_at: at,
        })),
      );
    });
    const checkedAt = new Date(at.getTime() + SIMULATED_CHECK_MS);
    await db.transaction((tx) =>
      recordChecks(
        tx,
        batch.map((m, i) => {
          const changes = options.changes?.get(m.id) ?? [];
          return {
            monitorId: m.id,
            token: tokens[i]!,
            checkedAt,
            nextCheckAt: nextDueAt(at, intervalMinutes, stableOffsetSeconds(m.id, intervalMinutes), checkedAt),
            changed: changes.length > 0,
            issues: [],
            consecutiveFailures: 0,
            failingSince: null,
            changes,
            run: { duration_ms: SIMULATED_CHECK_MS, outcome: 'ok' as const, http_status: 200, manual_check_id: null },
          };
        }),
      ),
    );
  }
}
