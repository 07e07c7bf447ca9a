import type { Clock } from '../clock.ts';
import { AppError } from '../errors.ts';
import { METRICS } from '../domain/usage-metrics.ts';
import type { Database } from '../store/database.ts';
import { lockAccount } from '../store/accounts-store.ts';
import { addToCounter, lockCounter } from '../store/counters-store.ts';
import { lockPreviewSpacing, writePreviewSpacing } from '../store/previews-store.ts';
import { periodEnd, periodStart, secondsUntil } from '../domain/periods.ts';
import type { Principal } from './tokens.ts';

/** A spent preview credit, kept so it can be given back when the load never happened. */
export interface PreviewCredit {
  at: Date;
  previousLastAt: Date | null;
}

interface CreditDeps {
  db: Database;
  clock: Clock;
}

/**
 * Spends one preview credit (month, day and spacing), atomically per account.
 * Over a limit: 429 preview_limited with Retry-After.
 */
export async function spendPreviewCredit(deps: CreditDeps, principal: Principal): Promise<PreviewCredit> {
  const { plan, accountId } = principal;
  return deps.db.transaction(async (tx) => {
    await lockAccount(tx, accountId);
    // The time is read once the account is ours: a request that held the lock before may have spent a credit "later" than
    // a time read before waiting, and spacing is measured in the order the credits are spent.
    const now = deps.clock.now();
    const month = await lockCounter(tx, accountId, METRICS.previewsMonth.name, periodStart(METRICS.previewsMonth, now));
    const day = await lockCounter(tx, accountId, METRICS.previewsDay.name, periodStart(METRICS.previewsDay, now));
    const lastAt = await lockPreviewSpacing(tx, accountId);
    if (month >= plan.previews_per_month) {
      throw new AppError('preview_limited', `at most ${plan.previews_per_month} previews per month`, {
        retryAfter: secondsUntil(periodEnd(METRICS.previewsMonth, now), now),
      });
    }
    if (day >= plan.previews_per_day) {
      throw new AppError('preview_limited', `at most ${plan.previews_per_day} previews per UTC day`, {
        retryAfter: secondsUntil(periodEnd(METRICS.previewsDay, now), now),
      });
    }
    const nextAllowed = lastAt ? new Date(lastAt.getTime() + plan.preview_spacing_seconds * 1000) : now;
    if (nextAllowed > now) {
      throw new AppError('preview_limited', `previews must be at least ${plan.preview_spacing_seconds} seconds apart`, {
        retryAfter: secondsUntil(nextAllowed, now),
      });
    }
    await addToCounter(tx, accountId, METRICS.previewsMonth.name, periodStart(METRICS.previewsMonth, now), 1);
    await addToCounter(tx, accountId, METRICS.previewsDay.name, periodStart(METRICS.previewsDay, now), 1);
    await writePreviewSpacing(tx, accountId, now);
    return { at: now, previousLastAt: lastAt };
  });
}

/** Gives a credit back: the load was refused before any connection, or the renderer had no room. */
export async function refundPreviewCredit(deps: CreditDeps, principal: Principal, credit: PreviewCredit): Promise<void> {
  await deps.db.transaction(async (tx) => {
    await lockAccount(tx, principal.accountId);
    await addToCounter(tx, principal.accountId, METRICS.previewsMonth.name, periodStart(METRICS.previewsMonth, credit.at), -1);
    await addToCounter(tx, principal.accountId, METRICS.previewsDay.name, periodStart(METRICS.previewsDay, credit.at), -1);
    const lastAt = await lockPreviewSpacing(tx, principal.accountId);
    if (lastAt?.getTime() === credit.at.getTime()) await writePreviewSpacing(tx, principal.accountId, credit.previousLastAt);
  });
}
