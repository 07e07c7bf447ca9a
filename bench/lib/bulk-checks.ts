import { randomUUID } from 'node:crypto';
import { DEFAULT_CHECK_LEASE_SECONDS } from '../../src/config.ts';
import type { Plan } from '../../src/domain/plans.ts';
import { nextDueAt, stableOffsetSeconds } from '../../src/domain/schedule.ts';
import { reserveChecks, type Reservation } from '../../src/store/procedures/check-allowance.ts';
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

/** The monitors of a batch by the instant of their checks, in order of first appearance. */
function byInstant<M extends CheckedMonitor>(batch: M[], atOf: (monitor: M) => Date): { at: Date; indexes: number[] }[] {
  const groups = new Map<number, { at: Date; indexes: number[] }>();
  batch.forEach((monitor, i) => {
    const at = atOf(monitor);
    const group = groups.get(at.getTime()) ?? { at, indexes: [] };
    group.indexes.push(i);
    groups.set(at.getTime(), group);
  });
  return [...groups.values()];
}

/**
 * One check of every monitor, each at its own instant (`atOf`, one of the
 * monitor's slots), in batches of a claim's transaction and a commit's
 * transaction; `changes` holds the ids of the changes a monitor's check found
 * (unchanged when absent). Monitors given in order of their instants need
 * few reservation statements per batch.
 */
export async function recordChecksInBulk<M extends CheckedMonitor>(
  db: Database,
  monitors: M[],
  options: { atOf: (monitor: M) => Date; intervalMinutes: number; plan: Plan; changes?: Map<string, string[]> },
): Promise<void> {
  const { atOf, intervalMinutes, plan } = options;
  for (let start = 0; start < monitors.length; start += BATCH) {
    const batch = monitors.slice(start, start + BATCH);
    const tokens = batch.map(() => randomUUID());
    const ats = batch.map(atOf);
    await db.transaction(async (tx) => {
      // The engine reserves each claim's checks at the claim's time: one reservation per instant.
      const reservations: (Reservation | null)[] = [];
      for (const group of byInstant(batch, atOf)) {
        const reserved = await reserveChecks(
          tx,
          group.indexes.map((i) => ({ accountId: batch[i]!.accountId, plan, mode: 'html' as const })),
          group.at,
        );
        group.indexes.forEach((i, n) => (reservations[i] = reserved[n] ?? null));
      }
      await writeLeases(
        tx,
        batch.map((m, i) => ({
          monitor_id: m.id,
          token: tokens[i]!,
          host: m.host,
          lease_expires_at: new Date(ats[i]!.getTime() + DEFAULT_CHECK_LEASE_SECONDS * 1000),
          attempt: 1,
          scheduled: true,
          manual_check_id: null,
          reserved_metric: reservations[i]?.metric ?? null,
          reserved_period: reservations[i]?.period ?? null,
          claimed_at: ats[i]!,
        })),
      );
    });
    await db.transaction((tx) =>
      recordChecks(
        tx,
        batch.map((m, i) => {
          const changes = options.changes?.get(m.id) ?? [];
          const at = ats[i]!;
          const checkedAt = new Date(at.getTime() + SIMULATED_CHECK_MS);
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
