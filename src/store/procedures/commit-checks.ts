import { randomUUID } from 'node:crypto';
import type { TargetExtraction } from '../../domain/extract/index.ts';
import type { LoadAnswer } from '../../domain/host-politeness.ts';
import type { CheckIssue } from '../../domain/issues.ts';
import { CONFIRM_RECHECK_SECONDS } from '../../domain/noise.ts';
import { cadenceOf } from '../../domain/cadence.ts';
import type { Queryable } from '../database.ts';
import { deleteOtherBaselines, readBaselinesOf, setPendingValue, writeBaselines, type BaselineRow } from '../baselines-store.ts';
import { insertChanges, type ChangeRow } from '../changes-store.ts';
import { deleteLease, lockHeldChecks, type HeldCheck } from '../check-leases-store.ts';
import { finishManualCheck } from '../manual-checks-store.ts';
import { recordChecks, type CheckRecord } from '../monitor-checks-store.ts';
import { enqueueMonitorEvent, enqueueNotification } from '../outbox-store.ts';
import { lazySavepoint } from '../savepoint.ts';
import { saveTexts } from '../texts-store.ts';
import { writePageValidators, type ValidatorsRecord } from '../page-validators-store.ts';
import { sameValidators, type PageValidators } from '../../domain/page-validators.ts';
import type { CheckRunOutcome } from '../check-runs-store.ts';
import type { WorkItem } from './claim-work.ts';
import { recordHostOutcome } from './host-outcome.ts';
import { decideTarget, type TargetDecision } from './target-outcome.ts';

// The end of checks, several in one transaction (group commit): for each
// check its baselines, changes, their outbox rows, the monitor's state, the
// manual-check receipt and the host's backoff all move together or not at
// all. Only the worker that still holds the lease may commit: a worker that
// outlived its lease (it was presumed dead and the check was taken over) has
// its results discarded, so a check is recorded once.
//
// Set-based where every check does the same: one statement locks all the
// leases, monitors and check states, one reads all the baselines, one stores
// the captured texts (before anything refers to them), one writes the
// baselines that moved, one writes all the check states, history rows and
// lease releases. What only some checks do (a change, a receipt, a backoff, a
// failing alert) is written per check under its own savepoint, taken at its
// first statement: a check whose rows fail is rolled back alone and reported,
// the others are recorded. The texts it stored stay, unreferenced, for the
// cleanup (texts are content-addressed and shared).

/** What the commit needs of a load: not the page itself, which extraction is done with. */
export interface LoadSummary extends LoadAnswer {
  /** whether a page was read (LoadResult.html was not null), or the site said it is the one read last time (a 304) */
  loaded: boolean;
  /** a conditional request answered 304: nothing was extracted and nothing changed */
  notModified: boolean;
  /** an html page read whole: its validators (null: none sent); undefined otherwise */
  validators?: PageValidators | null;
}

export interface Observation {
  /** when the check began loading the page */
  startedAt: Date;
  load: LoadSummary;
  /** per target, in the monitor's order; null when no page was loaded */
  extractions: TargetExtraction[] | null;
}

/** A recorded check as the log tells it (the commit may run in the store's thread, where there is no logger). */
export interface RecordedCheck {
  outcome: 'recorded';
  /** the check's id, as webhooks carry it (check_id) */
  checkId: string;
  changes: string[];
  issues: CheckIssue[];
  result: CheckRunOutcome;
  httpStatus: number | null;
  /** the monitor started failing or recovered with this check */
  transition: { event: 'monitor.failing' | 'monitor.recovered'; failingSince: string; consecutiveFailures: number } | null;
}

export type CommitOutcome = RecordedCheck | { outcome: 'lease_lost' } | { outcome: 'monitor_changed' };

const MONITOR_CHANGED: CheckIssue = {
  target_id: null,
  code: 'monitor_changed',
  message: "the monitor's targets or loading changed while it was being checked; this capture was discarded",
};

export interface PendingCheck {
  item: WorkItem;
  observation: Observation;
  /** when the check finished */
  at: Date;
}

/** Per check, in order: its outcome, or the error its own rows raised (nothing of it was written). */
export type CommitResult = { ok: true; outcome: CommitOutcome } | { ok: false; error: unknown };

/** A check that made the monitor failing, or healthy again. */
type FailingTransition = { event: 'monitor.failing' | 'monitor.recovered'; since: Date; failures: number };

/** A check whose lease is still held, with what each target decided (null when the monitor changed meanwhile). */
interface HeldPending {
  check: PendingCheck;
  held: HeldCheck;
  stored: Map<string, BaselineRow>;
  targets: TargetDecision[] | null;
}

export async function commitChecks(tx: Queryable, checks: PendingCheck[]): Promise<CommitResult[]> {
  const held = await lockHeldChecks(
    tx,
    checks.map(({ item }) => ({ monitorId: item.monitorId, token: item.token })),
  );
  const baselines = await readBaselinesOf(tx, [...held.keys()]);
  const pending = checks.map((check): HeldPending | null => {
    const found = held.get(check.item.monitorId);
    if (found === undefined || found.lease.token !== check.item.token) return null;
    const stored = baselines.get(check.item.monitorId) ?? new Map<string, BaselineRow>();
    return { check, held: found, stored, targets: decideTargets(check, found, stored) };
  });
  await saveTexts(
    tx,
    pending.flatMap((p) => p?.targets?.flatMap((target) => (target.text ? [target.text] : [])) ?? []),
  );
  const records: CheckRecord[] = [];
  const validators: ValidatorsRecord[] = [];
  const moved: BaselineRow[] = [];
  const results: CommitResult[] = [];
  for (const entry of pending) {
    if (entry === null) {
      results.push({ ok: true, outcome: { outcome: 'lease_lost' } });
      continue;
    }
    const own = lazySavepoint(tx, 'check_commit');
    try {
      const { outcome, record } = await commitOne(own.tx, entry);
      await own.release();
      if (record) records.push(record);
      const read = entry.check.observation.load.validators;
      // Only a page whose every target was read may stand in for the next check's; the ones the check sent need no write.
      const kept = outcome.outcome === 'recorded' && outcome.result === 'ok' ? (read ?? null) : null;
      if (outcome.outcome === 'recorded' && read !== undefined && !sameValidators(kept, entry.check.item.validators)) {
        validators.push({ monitorId: entry.check.item.monitorId, configVersion: entry.check.item.configVersion, validators: kept });
      }
      for (const target of entry.targets ?? []) if (target.baseline) moved.push(target.baseline);
      results.push({ ok: true, outcome });
    } catch (error) {
      await own.rollback();
      results.push({ ok: false, error });
    }
  }
  await writeBaselines(tx, moved);
  await recordChecks(tx, records);
  await writePageValidators(tx, validators);
  return results;
}

/** What each target of a check decides, per target in the monitor's order; null when the monitor's targets changed meanwhile. */
function decideTargets(
  { item, observation, at }: PendingCheck,
  held: HeldCheck,
  stored: Map<string, BaselineRow>,
): TargetDecision[] | null {
  if (held.monitor.config_version !== item.configVersion) return null;
  const context = { monitorId: item.monitorId, accountId: item.accountId, loadMode: item.loadMode, at };
  return item.targets.map((target, index) =>
    decideTarget(context, target, observation.extractions?.[index] ?? null, stored.get(target.id)),
  );
}

/** One check's own rows; its state and history row are returned for the batch's single write. */
async function commitOne(
  tx: Queryable,
  { check: { item, observation, at }, held, stored: baselines, targets }: HeldPending,
): Promise<{ outcome: CommitOutcome; record: CheckRecord | null }> {
  const { monitor, state } = held;
  if (targets === null) {
    if (item.manualCheckId !== null) {
      await finishManualCheck(tx, item.manualCheckId, { status: 'failed', at, changes: [], issues: [MONITOR_CHANGED] });
    }
    await deleteLease(tx, item.monitorId, item.token);
    return { outcome: { outcome: 'monitor_changed' }, record: null };
  }

  const { load, extractions } = observation;
  const issues: CheckIssue[] = [...load.issues];
  const backoff = await recordHostOutcome(tx, item.host, load, at, held.hostHasBackoff);
  if (backoff) issues.push(backoff);

  const changes: string[] = [];
  const changeRows: ChangeRow[] = [];
  const notifying: string[] = [];
  let awaitingConfirmation = false;
  for (const [index, target] of item.targets.entries()) {
    const extraction = extractions?.[index] ?? null;
    if (extraction) issues.push(...extraction.issues);
    const decided = targets[index]!;
    awaitingConfirmation ||= decided.awaitingConfirmation;
    if (decided.pending) await setPendingValue(tx, item.monitorId, target.id, decided.pending);
    const { change } = decided;
    if (change === null) continue;
    changeRows.push(change.row);
    changes.push(change.id);
    if (change.notify) notifying.push(change.id);
  }
  await insertChanges(tx, changeRows);
  // Webhooks: one event per change, carrying the check's id so receivers can group; email: one message per check.
  const checkId = randomUUID();
  if (monitor.webhook_enabled) {
    for (const changeId of notifying)
      await enqueueNotification(tx, { changeId, accountId: item.accountId, channel: 'webhook', at, data: { check_id: checkId } });
  }
  if (monitor.email_enabled && notifying.length > 0) {
    await enqueueNotification(tx, {
      changeId: notifying[0]!,
      accountId: item.accountId,
      channel: 'email',
      at,
      data: { check_id: checkId, change_ids: notifying },
    });
  }
  // Chat channels, like email: one message per check.
  for (const channelId of notifying.length > 0 ? monitor.channel_ids : []) {
    await enqueueNotification(tx, {
      changeId: notifying[0]!,
      accountId: item.accountId,
      channel: 'chat',
      channelId,
      at,
      data: { check_id: checkId, change_ids: notifying },
    });
  }
  const targetIds = item.targets.map((t) => t.id);
  // Baselines are only written with the monitor row locked, so the ones read above are all there are.
  if ([...baselines.keys()].some((id) => !targetIds.includes(id))) await deleteOtherBaselines(tx, item.monitorId, targetIds);

  // Any capture, a manual one too, serves the slot that is due and puts the next one at least an interval later.
  const cadence = cadenceOf({ id: item.monitorId, intervalMinutes: item.intervalMinutes, schedule: item.schedule });
  const followingSlot = cadence.nextAfterCapture(item.scheduled ? item.dueAt : null, at);
  const scheduledAt = item.scheduled || state.next_check_at === null ? followingSlot : latest(state.next_check_at, followingSlot);
  // A value seen once by a confirm target is looked at again soon, whatever the interval.
  const recheckAt = awaitingConfirmation ? new Date(at.getTime() + CONFIRM_RECHECK_SECONDS * 1000) : null;
  const nextCheckAt = earliest(scheduledAt, recheckAt);
  if (item.manualCheckId !== null) {
    // A capture whose page could not be loaded is a failed check; a loaded page
    // with undetermined targets is a successful check with issues.
    const status = load.loaded ? 'succeeded' : 'failed';
    await finishManualCheck(tx, item.manualCheckId, { status, at, changes, issues });
  }
  const run = {
    duration_ms: Math.max(0, at.getTime() - observation.startedAt.getTime()),
    outcome: runOutcome(load, issues),
    http_status: load.status,
    manual_check_id: item.manualCheckId,
  } as const;
  const failed = !load.loaded || (extractions ?? []).some((extraction) => !extraction.ok);
  const consecutiveFailures = failed ? state.consecutive_failures + 1 : 0;
  const failingSince = !failed
    ? null
    : state.failing_since === null && consecutiveFailures >= monitor.failing_after
      ? at
      : state.failing_since;
  const transition = failingTransition(state.failing_since, failingSince, consecutiveFailures);
  if (transition) {
    const data =
      transition.event === 'monitor.failing'
        ? { failing_since: transition.since.toISOString(), consecutive_failures: transition.failures, issues }
        : { failing_since: transition.since.toISOString(), recovered_at: at.toISOString() };
    for (const channel of ['email', 'webhook'] as const) {
      if (channel === 'email' ? monitor.email_enabled : monitor.webhook_enabled) {
        await enqueueMonitorEvent(tx, { monitorId: item.monitorId, accountId: item.accountId, channel, event: transition.event, data, at });
      }
    }
    for (const channelId of monitor.channel_ids) {
      const event = {
        monitorId: item.monitorId,
        accountId: item.accountId,
        channel: 'chat',
        channelId,
        event: transition.event,
        data,
        at,
      } as const;
      await enqueueMonitorEvent(tx, event);
    }
  }
  const record: CheckRecord = {
    monitorId: item.monitorId,
    token: item.token,
    checkedAt: at,
    nextCheckAt,
    changed: changes.length > 0,
    issues,
    consecutiveFailures,
    failingSince,
    changes,
    run,
  };
  const logged = transition && { event: transition.event, failingSince: transition.since.toISOString(), consecutiveFailures };
  return {
    outcome: { outcome: 'recorded', checkId, changes, issues, result: run.outcome, httpStatus: load.status, transition: logged },
    record,
  };
}

function runOutcome(load: LoadSummary, issues: CheckIssue[]): CheckRunOutcome {
  if (!load.loaded) return 'failed';
  if (load.notModified) return 'not_modified';
  return issues.length > 0 ? 'issues' : 'ok';
}

function latest(a: Date, b: Date): Date {
  return a >= b ? a : b;
}

function earliest(a: Date | null, b: Date | null): Date | null {
  if (a === null || b === null) return a ?? b;
  return a <= b ? a : b;
}

function failingTransition(was: Date | null, now: Date | null, failures: number): FailingTransition | null {
  if ((was === null) === (now === null)) return null;
  return now !== null ? { event: 'monitor.failing', since: now, failures } : { event: 'monitor.recovered', since: was!, failures: 0 };
}
