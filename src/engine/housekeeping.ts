import type { CheckIssue } from '../domain/issues.ts';
import type { Plans, PlanName } from '../domain/plans.ts';
import type { Database } from '../store/database.ts';
import { deleteExpiredChanges } from '../store/changes-store.ts';
import { deleteCountersBefore } from '../store/counters-store.ts';
import { lockAbandonedLeases } from '../store/check-leases-store.ts';
import { deleteExpiredCheckRuns } from '../store/check-runs-store.ts';
import { cancelChecksWithoutPro, deleteOldManualChecks, expireQueuedChecks, failOrphanedChecks } from '../store/manual-checks-store.ts';
import { deleteExpiredPasswordLinks, deleteExpiredSessions } from '../store/dashboard-store.ts';
import { refreshPlannerStatistics } from '../store/planner-statistics.ts';
import { vacuumHotTables } from '../store/vacuum.ts';
import { deleteExpiredPreviews } from '../store/previews-store.ts';
import { deleteUnreferencedTexts, UNUSED_TEXT_GRACE_MS } from '../store/texts-store.ts';
import { monitoredPlans } from '../store/procedures/claim-work.ts';
import { abandonLease } from '../store/procedures/lease-settlement.ts';
import { storedReservation } from '../store/procedures/check-allowance.ts';
import { RECEIPT_DAYS } from '../domain/manual-check.ts';

// Book-keeping every scheduler cycle does before claiming work, and the
// periodic physical cleanup of what retention already hides from reads.

const DAY_MS = 86_400_000;
/**
 * Usage counters are read for the current period only (GET /usage, limits); a
 * refund may reach back into the previous one. Older periods are deleted.
 */
const COUNTER_DAYS = 62;

const NO_PRO: CheckIssue = { target_id: null, code: 'check_cancelled', message: 'cancelled: the account no longer has Pro access' };
const MONITOR_GONE: CheckIssue = {
  target_id: null,
  code: 'check_cancelled',
  message: 'the monitor was deleted while it was being checked',
};
const NOT_MONITORED: CheckIssue = {
  target_id: null,
  code: 'check_cancelled',
  message: 'the check was not completed: the monitor was paused or the account lost Pro access',
};

/** Moves manual checks whose time is up and settles leases nobody will take over. */
export async function settleChecks(db: Database, plans: Plans, at: Date): Promise<void> {
  await db.transaction(async (tx) => {
    await expireQueuedChecks(tx, at);
    await cancelChecksWithoutPro(tx, monitoredPlans(plans), at, NO_PRO);
    await failOrphanedChecks(tx, at, MONITOR_GONE);
    for (const lease of await lockAbandonedLeases(tx, at, monitoredPlans(plans))) {
      const reservation = storedReservation(lease.reserved_metric, lease.reserved_period);
      await abandonLease(
        tx,
        { monitorId: lease.monitor_id, accountId: lease.account_id, manualCheckId: lease.manual_check_id, reservation },
        NOT_MONITORED,
        at,
      );
    }
  });
}

export interface CleanupReport {
  changes: number;
  checkRuns: number;
  texts: number;
  receipts: number;
  /** expired previews, with their page captures */
  previews: number;
  /** usage counters of periods that began more than COUNTER_DAYS ago */
  counters: number;
  /** expired dashboard sessions and set-password links */
  sessions: number;
  passwordLinks: number;
  /** PGlite only: milliseconds the VACUUM of each hot table took (PostgreSQL's autovacuum does this there) */
  vacuumMs: Record<string, number> | null;
}

/**
 * Deletes changes and check history past their plan's retention, captured texts nothing refers to, receipts older
 * than seven days, expired previews (their page captures with them), usage counters of periods long past, and expired
 * dashboard sessions and password links.
 */
export async function cleanupExpired(db: Database, plans: Plans, at: Date): Promise<CleanupReport> {
  let changes = 0;
  let checkRuns = 0;
  for (const name of Object.keys(plans) as PlanName[]) {
    const cutoff = new Date(at.getTime() - plans[name].retention_days * DAY_MS);
    changes += await deleteExpiredChanges(db, name, cutoff);
    checkRuns += await deleteExpiredCheckRuns(db, name, cutoff);
  }
  const texts = await deleteUnreferencedTexts(db, new Date(at.getTime() - UNUSED_TEXT_GRACE_MS));
  const receipts = await deleteOldManualChecks(db, new Date(at.getTime() - RECEIPT_DAYS * DAY_MS));
  const previews = await deleteExpiredPreviews(db, at);
  const counters = await deleteCountersBefore(db, new Date(at.getTime() - COUNTER_DAYS * DAY_MS));
  const sessions = await deleteExpiredSessions(db, at);
  const passwordLinks = await deleteExpiredPasswordLinks(db, at);
  // VACUUM (ANALYZE) on PGlite also refreshes the planner statistics the claims need.
  const vacuumMs = db.kind === 'pglite' ? await vacuumHotTables(db) : null;
  if (vacuumMs === null) await refreshPlannerStatistics(db);
  return { changes, checkRuns, texts, receipts, previews, counters, sessions, passwordLinks, vacuumMs };
}
