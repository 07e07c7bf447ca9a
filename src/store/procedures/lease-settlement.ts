import type { CheckIssue } from '../../domain/issues.ts';
import type { Queryable } from '../database.ts';
import { deleteLeaseOf } from '../check-leases-store.ts';
import { finishManualCheck } from '../manual-checks-store.ts';
import { refundCheck, type Reservation } from './check-allowance.ts';

// A lease that will never be committed (its monitor was paused or lost Pro
// after its worker died, or its check kept failing to run): the reservation
// goes back, as the page was not captured; a running manual check fails with
// the reason; the lease is removed.

export interface AbandonedLease {
  monitorId: string;
  accountId: string;
  manualCheckId: string | null;
  reservation: Reservation | null;
}

export async function abandonLease(tx: Queryable, lease: AbandonedLease, issue: CheckIssue, at: Date): Promise<void> {
  if (lease.reservation !== null) await refundCheck(tx, lease.accountId, lease.reservation);
  if (lease.manualCheckId !== null)
    await finishManualCheck(tx, lease.manualCheckId, { status: 'failed', at, changes: [], issues: [issue] });
  await deleteLeaseOf(tx, lease.monitorId);
}
