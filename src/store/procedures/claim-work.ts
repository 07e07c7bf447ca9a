import { randomUUID } from 'node:crypto';
import type { CheckIssue } from '../../domain/issues.ts';
import { earliestRunAt } from '../../domain/manual-check.ts';
import type { Plan, Plans, PlanName } from '../../domain/plans.ts';
import { cadenceOf, type Cadence } from '../../domain/cadence.ts';
import type { MonitorSchedule } from '../../domain/monitor-schedule.ts';
import type { PageValidators } from '../../domain/page-validators.ts';
import type { Target } from '../../domain/targets.ts';
import type { Step } from '../../domain/steps.ts';
import type { Queryable } from '../database.ts';
import {
  countLiveLeasesByHost,
  findClaimCandidates,
  lockClaims,
  writeLeases,
  type ClaimCandidate,
  type LeaseRow,
} from '../check-leases-store.ts';
import { readActiveBackoffs } from '../host-backoff-store.ts';
import { finishManualCheck, startManualCheck } from '../manual-checks-store.ts';
import { recordSkippedCheck, rescheduleMonitors } from '../monitor-checks-store.ts';
import { reserveChecks, storedReservation, type Reservation } from './check-allowance.ts';
import { backoffIssue, hostOf } from '../../domain/host-politeness.ts';
import { abandonLease } from './lease-settlement.ts';
import type { LoadMode } from '../../domain/load-mode.ts';

// One claim transaction: picks the work a worker may start now and leases it.
// What is due is decided here, with the clock's time: the schedule, manual
// checks (not sooner than the plan's fastest interval after the previous
// capture), site backoff, per-host concurrency and the monthly allowance.

/** A claimed check: everything the worker needs without reading the monitor again. */
export interface WorkItem {
  monitorId: string;
  accountId: string;
  url: string;
  host: string;
  loadMode: LoadMode;
  /** the operator's proxy to load through; null: directly */
  proxy: string | null;
  targets: Target[];
  /** browser mode: steps run before the page is read */
  steps: Step[];
  configVersion: number;
  intervalMinutes: number;
  schedule: MonitorSchedule | null;
  /** the slot served when `scheduled`: the monitor's next_check_at at the claim */
  dueAt: Date | null;
  scheduled: boolean;
  manualCheckId: string | null;
  /** the page is asked for only if it changed since these (a scheduled html check under an unchanged configuration); null: load it whole */
  validators: PageValidators | null;
  token: string;
  attempt: number;
  reservation: Reservation;
}

export interface ClaimSettings {
  plans: Plans;
  /** checks to claim at most */
  capacity: number;
  leaseSeconds: number;
  hostConcurrency: number;
  tickSeconds: number;
}

/** Plans whose accounts are monitored (Pro access). */
export function monitoredPlans(plans: Plans): PlanName[] {
  return (Object.keys(plans) as PlanName[]).filter((name) => plans[name].api_access);
}

/** Claims of one check (the first and the take-overs) before it is given up. */
export const MAX_ATTEMPTS = 5;

const EXHAUSTED = (mode: LoadMode): CheckIssue => ({
  target_id: null,
  code: 'allowance_exhausted',
  message: `the account's monthly ${mode} check allowance is used up; checks resume next month`,
});

/** A candidate that passed every test but the allowance. */
interface Accepted {
  candidate: ClaimCandidate;
  plan: Plan;
  host: string;
  work: { scheduled: boolean; manualCheckId: string | null };
}

export interface Claim {
  items: WorkItem[];
  /**
   * Due work was left for lack of a free slot, in this process or at its host:
   * a check that ends frees one, so the loop should claim again then.
   */
  waiting: boolean;
  /**
   * The claim read a full page of candidates and moved some of them on
   * (overdue, backed off, out of allowance, given up): due work may be behind
   * them, so the loop should claim again at once rather than at its next cycle.
   * An engine that fell far behind otherwise moved one page of overdue
   * monitors per cycle and checked nothing until it had gone through them all.
   */
  again: boolean;
}

/** What a claim decided for the candidates it does not check now. */
interface MovedOn {
  /** overdue monitors and their next own slots, written together */
  rescheduled: { id: string; nextCheckAt: Date }[];
  /** candidates skipped or given up */
  skipped: number;
}

export async function claimWork(tx: Queryable, settings: ClaimSettings, at: Date): Promise<Claim> {
  if (settings.capacity <= 0) return { items: [], waiting: true, again: false };
  await lockClaims(tx);
  const plans = monitoredPlans(settings.plans);
  // Spare candidates for those the per-host limit or a backoff turns away; each costs the query a few rows' joins.
  const limit = settings.capacity * 2 + 16;
  const candidates = await findClaimCandidates(tx, at, plans, limit);
  const liveByHost = await countLiveLeasesByHost(tx, at);
  const backoffs = await readActiveBackoffs(tx, [...new Set(candidates.map((c) => hostOf(c.url)))], at);
  const accepted: Accepted[] = [];
  const moved: MovedOn = { rescheduled: [], skipped: 0 };
  let waiting = false;
  for (const candidate of candidates) {
    if (accepted.length >= settings.capacity) {
      waiting = true;
      break;
    }
    const plan = settings.plans[candidate.plan as PlanName];
    const host = hostOf(candidate.url);
    if ((candidate.lease_attempt ?? 0) >= MAX_ATTEMPTS) {
      await giveUp(tx, candidate, at);
      moved.skipped++;
      continue;
    }
    const work = decideWork(candidate, plan, settings, at, moved);
    if (work === null) continue;
    const backoff = backoffs.get(host);
    // A dead worker's check was already dispatched: it is finished whatever the site's state.
    if (backoff && candidate.lease_attempt === null) {
      if (work.scheduled) {
        const next = cadenceOfCandidate(candidate).nextDue(candidate.next_check_at ?? at, backoff.until);
        await recordSkippedCheck(tx, candidate.id, next, [backoffIssue(backoff.until, backoff.reason)]);
        moved.skipped++;
      }
      continue;
    }
    if ((liveByHost.get(host) ?? 0) >= settings.hostConcurrency) {
      waiting = true;
      continue;
    }
    accepted.push({ candidate, plan, host, work });
    liveByHost.set(host, (liveByHost.get(host) ?? 0) + 1);
  }
  const reservations = await reservationsFor(tx, accepted, at);
  const items: WorkItem[] = [];
  const leases: LeaseRow[] = [];
  for (const [i, { candidate, host, work }] of accepted.entries()) {
    const reservation = reservations[i]!;
    if (reservation === null) {
      await skipExhausted(tx, candidate, work, at);
      moved.skipped++;
      // Its slot stays free in this claim.
      waiting = true;
      continue;
    }
    if (work.manualCheckId !== null && candidate.lease_manual_check_id === null) await startManualCheck(tx, work.manualCheckId, at);
    const token = randomUUID();
    const attempt = (candidate.lease_attempt ?? 0) + 1;
    leases.push({
      monitor_id: candidate.id,
      token,
      host,
      lease_expires_at: new Date(at.getTime() + settings.leaseSeconds * 1000),
      attempt,
      scheduled: work.scheduled,
      manual_check_id: work.manualCheckId,
      reserved_metric: reservation.metric,
      reserved_period: reservation.period,
      claimed_at: at,
    });
    items.push({
      monitorId: candidate.id,
      accountId: candidate.account_id,
      url: candidate.url,
      host,
      loadMode: candidate.load_mode,
      proxy: candidate.proxy,
      targets: candidate.targets as Target[],
      steps: candidate.steps as Step[],
      configVersion: candidate.config_version,
      intervalMinutes: candidate.interval_minutes,
      schedule: candidate.schedule,
      dueAt: work.scheduled ? candidate.next_check_at : null,
      scheduled: work.scheduled,
      manualCheckId: work.manualCheckId,
      validators: work.manualCheckId === null ? storedValidators(candidate) : null,
      token,
      attempt,
      reservation,
    });
  }
  // Written together at the end: nothing above reads the leases or the slots of these monitors again.
  await rescheduleMonitors(tx, moved.rescheduled);
  await writeLeases(tx, leases);
  // A full page of candidates may hide more due work behind it.
  const fullPage = candidates.length === limit;
  const movedOn = moved.rescheduled.length + moved.skipped > 0;
  return { items, waiting: waiting || fullPage, again: fullPage && movedOn && items.length < settings.capacity };
}

const OVERDUE_CYCLES = 2;

/** A manual check always loads the page whole; so does an html check without stored validators, and every browser check. */
function storedValidators(candidate: ClaimCandidate): PageValidators | null {
  if (candidate.load_mode !== 'html') return null;
  const { validator_etag: etag, validator_last_modified: lastModified } = candidate;
  return etag === null && lastModified === null ? null : { etag, lastModified };
}

function cadenceOfCandidate(candidate: ClaimCandidate): Cadence {
  return cadenceOf({ id: candidate.id, intervalMinutes: candidate.interval_minutes, schedule: candidate.schedule });
}

/**
 * Whether the candidate has a scheduled slot and/or a manual check to serve
 * now. A monitor found more than two cycles overdue after it has been checked
 * before (the service was down or overloaded) is moved to its next own slot
 * instead of being checked at once, so overdue monitors come back spread over
 * their interval rather than all together. Two cycles, not one: a worker's
 * real period is a tick plus the time a cycle takes, so a monitor that fell
 * due just after a claim is routinely a little over one tick late.
 */
function decideWork(
  candidate: ClaimCandidate,
  plan: Plan,
  settings: ClaimSettings,
  at: Date,
  moved: MovedOn,
): { scheduled: boolean; manualCheckId: string | null } | null {
  if (candidate.lease_attempt !== null) {
    return { scheduled: candidate.lease_scheduled ?? false, manualCheckId: candidate.lease_manual_check_id };
  }
  let scheduled = candidate.next_check_at === null || candidate.next_check_at <= at;
  const overdueMs = candidate.next_check_at === null ? 0 : at.getTime() - candidate.next_check_at.getTime();
  if (scheduled && candidate.last_checked_at !== null && overdueMs > OVERDUE_CYCLES * settings.tickSeconds * 1000) {
    moved.rescheduled.push({
      id: candidate.id,
      nextCheckAt: cadenceOfCandidate(candidate).nextDue(candidate.next_check_at ?? at, at),
    });
    scheduled = false;
  }
  if (
    scheduled &&
    candidate.next_check_at !== null &&
    cadenceOfCandidate(candidate).slotWaits(candidate.next_check_at, candidate.last_checked_at, at)
  ) {
    scheduled = false;
  }
  const earliest = earliestRunAt(candidate.last_checked_at, plan.min_interval_minutes[candidate.load_mode]);
  const manualReady = candidate.queued_check_id !== null && (earliest === null || earliest <= at);
  const manualCheckId = manualReady ? candidate.queued_check_id : null;
  return scheduled || manualCheckId !== null ? { scheduled, manualCheckId } : null;
}

/**
 * A take-over keeps the dead worker's reservation; fresh claims reserve theirs
 * together (one statement while the allowances have room).
 */
async function reservationsFor(tx: Queryable, accepted: Accepted[], at: Date): Promise<(Reservation | null)[]> {
  const stored = accepted.map(({ candidate }) => storedReservation(candidate.lease_reserved_metric, candidate.lease_reserved_period));
  const fresh = accepted.filter((_, i) => stored[i] === null);
  const reserved = await reserveChecks(
    tx,
    fresh.map(({ candidate, plan }) => ({ accountId: candidate.account_id, plan, mode: candidate.load_mode })),
    at,
  );
  let next = 0;
  return stored.map((reservation) => reservation ?? reserved[next++] ?? null);
}

/** No allowance left: the slot passes with an issue and a claimed manual check fails without a charge. */
async function skipExhausted(
  tx: Queryable,
  candidate: ClaimCandidate,
  work: { scheduled: boolean; manualCheckId: string | null },
  at: Date,
): Promise<void> {
  const issue = EXHAUSTED(candidate.load_mode);
  if (work.scheduled) {
    await recordSkippedCheck(tx, candidate.id, cadenceOfCandidate(candidate).nextDue(candidate.next_check_at ?? at, at), [issue]);
  }
  if (work.manualCheckId !== null) {
    await startManualCheck(tx, work.manualCheckId, at);
    await finishManualCheck(tx, work.manualCheckId, { status: 'failed', at, changes: [], issues: [issue] });
  }
}

/**
 * A check claimed MAX_ATTEMPTS times without being recorded (its workers died
 * or the renderer never had room) is given up rather than retried forever.
 */
async function giveUp(tx: Queryable, candidate: ClaimCandidate, at: Date): Promise<void> {
  const issue: CheckIssue = {
    target_id: null,
    code: 'fetch_failed',
    message: `the check could not be completed in ${MAX_ATTEMPTS} attempts`,
  };
  const reservation = storedReservation(candidate.lease_reserved_metric, candidate.lease_reserved_period);
  await abandonLease(
    tx,
    { monitorId: candidate.id, accountId: candidate.account_id, manualCheckId: candidate.lease_manual_check_id, reservation },
    issue,
    at,
  );
  if (candidate.lease_scheduled) {
    await recordSkippedCheck(tx, candidate.id, cadenceOfCandidate(candidate).nextDue(candidate.next_check_at ?? at, at), [issue]);
  }
}
