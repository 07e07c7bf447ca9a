import { nextDueAt, stableOffsetSeconds } from '../../src/domain/schedule.ts';
import type { Queryable } from '../../src/store/database.ts';

// The scale benchmarks' monitors are due, and their simulated captures
// stamped, at each monitor's own slots (src/domain/schedule.ts), as the engine
// keeps them. Since #33 a slot less than an interval after the previous
// capture waits for the interval to pass, so a capture stamped anywhere else
// would make the run's slots wait (docs/decisions/0049-scale-benchmark-settled-seeding-no-longer-matches-the.md).

/** What settled seeding writes per monitor (one simulated capture), with some room: 100,000 monitors took 1 to 4.5 minutes here. */
const SEEDING_MS_PER_MONITOR = 3;

/** The monitor's first own slot strictly after `after`. */
export function ownSlotAfter(monitorId: string, intervalMinutes: number, after: Date): Date {
  return nextDueAt(after, intervalMinutes, stableOffsetSeconds(monitorId, intervalMinutes), after);
}

/**
 * When a run's first slots may begin: after `delayMs` and, with settled
 * seeding, the time it takes. The due times (and so the seeded captures, one
 * interval before them) are computed from it before seeding.
 */
export function runStart(monitors: number, settled: boolean, delayMs: number): Date {
  return new Date(Date.now() + delayMs + (settled ? monitors * SEEDING_MS_PER_MONITOR : 0));
}

/**
 * When seeding overran the run's first slots (they are no longer `leadMs`
 * ahead), moves them and `start` on by whole intervals and returns the new
 * start; otherwise returns `start`. The seeded captures then lie that many
 * intervals further back, which the interval rule allows: the run is that of
 * a service whose monitors missed a slot.
 */
export function startAfterOverrun(start: Date, due: { nextCheckAt: Date }[], intervalMinutes: number, leadMs: number): Date {
  const behindMs = Date.now() + leadMs - start.getTime();
  if (behindMs <= 0) return start;
  const shiftMs = Math.ceil(behindMs / (intervalMinutes * 60_000)) * intervalMinutes * 60_000;
  console.log(`seeding overran the first slots: the run starts ${shiftMs / 1000} s later`);
  for (const monitor of due) monitor.nextCheckAt = new Date(monitor.nextCheckAt.getTime() + shiftMs);
  return new Date(start.getTime() + shiftMs);
}

/** Starting the workers must be done before the first slot, or the first slots would be missed. */
export function assertBefore(start: Date, what: string): void {
  if (Date.now() >= start.getTime()) throw new Error(`${what} ended ${Date.now() - start.getTime()} ms after the run's first slot`);
}

/**
 * Each monitor's first own slot after the real run's `end` that is also at
 * least an interval after its last capture there: where the engine would
 * check it next.
 */
export async function ownSlotsAfterRun(db: Queryable, ids: string[], intervalMinutes: number, end: Date): Promise<Map<string, Date>> {
  const rows = await db.query<{ monitor_id: string; last_checked_at: Date | null }>(
    'SELECT monitor_id, last_checked_at FROM check_state WHERE monitor_id = ANY($1::uuid[])',
    [ids],
  );
  const periodMs = intervalMinutes * 60_000;
  return new Map(
    rows.map((row) => {
      const earliest = Math.max(end.getTime(), (row.last_checked_at?.getTime() ?? 0) + periodMs);
      return [row.monitor_id, ownSlotAfter(row.monitor_id, intervalMinutes, new Date(earliest))];
    }),
  );
}
