import { randomUUID } from 'node:crypto';
import type { Static } from '@sinclair/typebox';
import type { CreateMonitorBody, MonitorSchema, UpdateMonitorBody } from '../schemas/monitors.ts';
import type { Clock } from '../clock.ts';
import { AppError } from '../errors.ts';
import { initialDueAt } from '../domain/schedule.ts';
import { cadenceOf } from '../domain/cadence.ts';
import { planStopIssue } from '../domain/plan-fit.ts';
import type { Plan } from '../domain/plans.ts';
import type { Loaders } from '../fetch/loaders.ts';
import type { Database, Queryable } from '../store/database.ts';
import { foreignChannelIds } from '../store/channels-store.ts';
import {
  countMonitors,
  deleteMonitor,
  findMonitor,
  insertMonitor,
  listMonitors,
  lockMonitor,
  monitorIdForUrl,
  updateMonitor,
  type MonitorChanges,
  type MonitorFilters,
  type MonitorRow,
} from '../store/monitors-store.ts';
import { runIdempotent, type IdempotentOutcome } from './idempotency.ts';
import { currentObservations, type Observation } from './observations.ts';
import { cancelPendingChecks } from './manual-checks.ts';
import { assertConfiguration, normaliseTargets, requirePreview } from './monitor-config.ts';
import { chooseProxy } from './proxy-choice.ts';
import { assertPreviewSteps } from './step-config.ts';
import { assertSecretsExist } from './secrets.ts';
import type { Principal } from './tokens.ts';
import type { MonitorReads } from './monitor-reads.ts';

export type { MonitorFilters };

export interface MonitorDeps {
  db: Database;
  clock: Clock;
  /** target validation reads the preview's capture through the extraction threads */
  loaders: Loaders;
}

export type CreateMonitorInput = Static<typeof CreateMonitorBody>;
export type UpdateMonitorInput = Static<typeof UpdateMonitorBody>;
export type MonitorView = Static<typeof MonitorSchema>;

/** The monitor as the API shows it; an active monitor the account's plan keeps from being checked says so in last_issues. */
export function monitorView(row: MonitorRow, plan: Plan): MonitorView {
  const stopped = planStopIssue(plan, row);
  const iso = (d: Date | null) => d?.toISOString() ?? null;
  return {
    id: row.id,
    url: row.url,
    load_mode: row.load_mode,
    proxy: row.proxy,
    status: row.status,
    name: row.name,
    labels: row.labels,
    interval_minutes: row.interval_minutes,
    schedule: row.schedule,
    targets: row.targets,
    steps: row.steps,
    notifications: {
      email_enabled: row.email_enabled,
      email_mode: row.email_mode,
      webhook_enabled: row.webhook_enabled,
      channels: row.channel_ids,
      failing_after: row.failing_after,
    },
    config_version: row.config_version,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    last_checked_at: iso(row.last_checked_at),
    next_check_at: iso(row.next_check_at),
    last_change_at: iso(row.last_change_at),
    last_issues: stopped ? [stopped, ...row.last_issues] : row.last_issues,
    failing_since: iso(row.failing_since),
  };
}

/** Consecutive failed checks before monitor.failing, unless the monitor says otherwise. */
export const DEFAULT_FAILING_AFTER = 3;

/** The chosen channel ids, when every one is a channel of the account. */
async function ownChannels(tx: Queryable, accountId: string, ids: string[]): Promise<string[]> {
  const foreign = await foreignChannelIds(tx, accountId, ids);
  if (foreign.length > 0) {
    throw new AppError('validation_failed', 'no such channel', {
      details: [{ field: 'notifications.channels', message: `no such channel: ${foreign.join(', ')}` }],
    });
  }
  return ids;
}

const monitorNotFound = () => new AppError('not_found', 'monitor not found');

/** POST /monitors, exactly once per Idempotency-Key. */
export async function createMonitor(
  deps: MonitorDeps,
  principal: Principal,
  input: CreateMonitorInput,
  idempotencyKey: string | string[] | undefined,
): Promise<IdempotentOutcome<{ id: string }>> {
  return runIdempotent(deps, principal, 'create_monitor', idempotencyKey, input, async (tx) => {
    const now = deps.clock.now();
    // runIdempotent holds the account lock: the slot count and the one-monitor-per-URL rule are exact.
    const preview = await requirePreview(tx, principal.accountId, input.preview_id, now);
    const targets = normaliseTargets(input.targets);
    const proxy = chooseProxy(deps.loaders.proxyNames, principal.plan, input.proxy);
    const schedule = input.schedule ?? null;
    const steps = input.steps ?? [];
    assertPreviewSteps(preview, steps);
    // runIdempotent holds the account lock already.
    await assertSecretsExist(tx, principal.accountId, steps, { lock: false });
    await assertConfiguration(deps.loaders, principal.plan, preview, targets, {
      intervalMinutes: input.interval_minutes,
      schedule,
      at: now,
    });
    const existing = await monitorIdForUrl(tx, principal.accountId, preview.url);
    if (existing) throw new AppError('monitor_exists', `a monitor for this URL exists: ${existing}`);
    if ((await countMonitors(tx, principal.accountId)) >= principal.plan.monitors) {
      throw new AppError('allowance_exhausted', `the plan allows ${principal.plan.monitors} monitors; delete one first`);
    }
    const id = randomUUID();
    await insertMonitor(tx, {
      id,
      account_id: principal.accountId,
      url: preview.url,
      load_mode: preview.load_mode,
      proxy,
      status: input.status ?? 'active',
      name: input.name ?? null,
      labels: input.labels ?? [],
      interval_minutes: input.interval_minutes,
      schedule,
      targets,
      steps,
      email_enabled: input.notifications?.email_enabled ?? true,
      email_mode: input.notifications?.email_mode ?? null,
      webhook_enabled: input.notifications?.webhook_enabled ?? false,
      channel_ids: await ownChannels(tx, principal.accountId, input.notifications?.channels ?? []),
      failing_after: input.notifications?.failing_after ?? DEFAULT_FAILING_AFTER,
      created_at: now,
      updated_at: now,
      next_check_at: initialDueAt(id, now),
    });
    return { id };
  });
}

export async function getMonitor(deps: MonitorDeps, principal: Principal, id: string): Promise<MonitorView> {
  const row = await findMonitor(deps.db, principal.accountId, id);
  if (!row) throw monitorNotFound();
  return monitorView(row, principal.plan);
}

/** GET /monitors/{id}: the monitor with each target's current observation, in one statement (grouped with other reads). */
export async function getMonitorDetail(
  deps: { monitorReads: MonitorReads },
  principal: Principal,
  id: string,
): Promise<MonitorView & { observations: Observation[] }> {
  const found = await deps.monitorReads.call({ accountId: principal.accountId, id });
  if (!found) throw monitorNotFound();
  const monitor = monitorView(found.monitor, principal.plan);
  // Observations carry what the latest check said about each value, not why checks stopped.
  return { ...monitor, observations: currentObservations({ ...monitor, last_issues: found.monitor.last_issues }, found.baselines) };
}

/** How many monitors the account has, against its plan's limit. */
export async function monitorSlots(deps: MonitorDeps, principal: Principal): Promise<{ used: number; limit: number }> {
  return { used: await countMonitors(deps.db, principal.accountId), limit: principal.plan.monitors };
}

export interface MonitorPage {
  rows: MonitorView[];
  /** keyset position after the last row, when more may follow */
  next: { created_at: Date; seq: number } | null;
}

export async function listMonitorPage(
  deps: MonitorDeps,
  principal: Principal,
  query: MonitorFilters & { limit: number; after: { created_at: Date; seq: number } | null },
): Promise<MonitorPage> {
  const rows = await listMonitors(deps.db, principal.accountId, { ...query, limit: query.limit + 1 });
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  return {
    rows: page.map((row) => monitorView(row, principal.plan)),
    next: rows.length > query.limit && last ? { created_at: last.created_at, seq: last.seq } : null,
  };
}

/**
 * PATCH: metadata, status and notification flags change directly; targets,
 * interval or load method need a fresh preview of the same URL and the current
 * config_version, and bump it.
 */
export async function changeMonitor(deps: MonitorDeps, principal: Principal, id: string, input: UpdateMonitorInput): Promise<MonitorView> {
  return deps.db.transaction(async (tx) => {
    const now = deps.clock.now();
    const monitor = await lockMonitor(tx, principal.accountId, id);
    if (!monitor) throw monitorNotFound();
    const changesConfig =
      input.preview_id !== undefined ||
      input.targets !== undefined ||
      input.steps !== undefined ||
      input.interval_minutes !== undefined ||
      input.schedule !== undefined;
    if (changesConfig && input.expected_version === undefined) {
      throw new AppError('validation_failed', 'expected_version is required to change targets, steps, load method or schedule', {
        details: [{ field: 'expected_version', message: 'is required with preview_id, targets, steps, interval_minutes or schedule' }],
      });
    }
    if (input.expected_version !== undefined && input.expected_version !== monitor.config_version) {
      throw new AppError(
        'version_conflict',
        `expected_version ${input.expected_version} is stale; the monitor is at config_version ${monitor.config_version}`,
      );
    }
    const changes: MonitorChanges = {
      name: input.name,
      labels: input.labels,
      email_enabled: input.notifications?.email_enabled,
      email_mode: input.notifications?.email_mode,
      webhook_enabled: input.notifications?.webhook_enabled,
      channel_ids: input.notifications?.channels && (await ownChannels(tx, principal.accountId, input.notifications.channels)),
      failing_after: input.notifications?.failing_after,
      // Only the route of the next loads changes, not what they read: no fresh preview needed.
      proxy: input.proxy === undefined ? undefined : chooseProxy(deps.loaders.proxyNames, principal.plan, input.proxy),
    };
    if (input.status !== undefined && input.status !== monitor.status) {
      changes.status = input.status;
      if (input.status === 'active')
        changes.next_check_at = cadenceOf({
          id: monitor.id,
          intervalMinutes: monitor.interval_minutes,
          schedule: monitor.schedule,
        }).afterReconfiguring(now, monitor.last_checked_at);
      else await cancelPendingChecks(tx, monitor.id, now, 'paused');
    }
    if (changesConfig) {
      if (input.preview_id === undefined) {
        throw new AppError('validation_failed', 'changing targets, steps, load method or schedule requires a fresh preview_id', {
          details: [{ field: 'preview_id', message: 'is required with targets, steps, interval_minutes or schedule' }],
        });
      }
      const preview = await requirePreview(tx, principal.accountId, input.preview_id, now);
      if (preview.url !== monitor.url) {
        throw new AppError('preview_invalid', 'the preview is of another URL; a different URL needs a new monitor', {
          details: [{ field: 'preview_id', message: `preview of ${preview.url}, monitor of ${monitor.url}` }],
        });
      }
      const targets = normaliseTargets(input.targets ?? monitor.targets);
      // Unchanged steps stay, unless the monitor moves to html mode, which runs none.
      const steps = input.steps ?? (preview.load_mode === 'browser' ? monitor.steps : []);
      assertPreviewSteps(preview, steps);
      await assertSecretsExist(tx, principal.accountId, steps, { lock: true });
      const interval = input.interval_minutes ?? monitor.interval_minutes;
      const schedule = input.schedule === undefined ? monitor.schedule : input.schedule;
      await assertConfiguration(deps.loaders, principal.plan, preview, targets, { intervalMinutes: interval, schedule, at: now });
      await cancelPendingChecks(tx, monitor.id, now, 'targets_changed');
      Object.assign(changes, {
        targets,
        steps,
        interval_minutes: interval,
        schedule,
        load_mode: preview.load_mode,
        config_version: monitor.config_version + 1,
        next_check_at:
          (changes.status ?? monitor.status) === 'active'
            ? cadenceOf({ id: monitor.id, intervalMinutes: interval, schedule }).afterReconfiguring(now, monitor.last_checked_at)
            : monitor.next_check_at,
      });
    }
    return monitorView(await updateMonitor(tx, monitor.id, changes, now), principal.plan);
  });
}

/**
 * DELETE: the monitor and all its history (captures, changes, baselines), in
 * one transaction; frees the slot. Its queued manual checks become `cancelled`
 * receipts, which stay readable for their seven days as the specification's
 * receipt table describes.
 */
export async function removeMonitor(deps: MonitorDeps, principal: Principal, id: string): Promise<void> {
  const deleted = await deps.db.transaction(async (tx) => {
    const monitor = await lockMonitor(tx, principal.accountId, id);
    if (!monitor) return false;
    await cancelPendingChecks(tx, monitor.id, deps.clock.now(), 'deleted');
    return deleteMonitor(tx, principal.accountId, id);
  });
  if (!deleted) throw monitorNotFound();
}
