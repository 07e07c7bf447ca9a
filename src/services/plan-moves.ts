import { monitorsStoppedByMove } from '../domain/plan-fit.ts';
import { isPlanName, type Plans } from '../domain/plans.ts';
import type { Queryable } from '../store/database.ts';
import { activeMonitorsOf } from '../store/monitors-store.ts';
import { enqueueAccountNotice, MONITORS_STOPPED_EVENT } from '../store/outbox-store.ts';

// When the operator moves an account to a plan under which some of its active
// monitors are no longer checked, the owner hears of it once: one email,
// queued in the move's own transaction, so it is sent (and retried) like any
// other notification. Moving to the plan the account already has stops
// nothing new and queues nothing.

export async function noticeMonitorsStoppedByMove(
  tx: Queryable,
  plans: Plans,
  move: { accountId: string; from: string; to: string; at: Date },
): Promise<void> {
  if (move.from === move.to || !isPlanName(move.from) || !isPlanName(move.to)) return;
  const monitors = await activeMonitorsOf(tx, move.accountId);
  const stopped = monitorsStoppedByMove(plans[move.from], plans[move.to], monitors);
  if (stopped.length === 0) return;
  await enqueueAccountNotice(tx, {
    accountId: move.accountId,
    event: MONITORS_STOPPED_EVENT,
    data: { plan: move.to, monitors: stopped },
    at: move.at,
  });
}
