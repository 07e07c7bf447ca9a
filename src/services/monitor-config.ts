import { AppError } from '../errors.ts';
import type { Plan } from '../domain/plans.ts';
import { scheduleProblems, type MonitorSchedule } from '../domain/monitor-schedule.ts';
import type { Target } from '../domain/targets.ts';
import type { Loaders } from '../fetch/loaders.ts';
import type { Queryable } from '../store/database.ts';
import { findValidPreview, type PreviewRow } from '../store/previews-store.ts';
import { assertTargetsConfigured, evaluateTargets } from './previews.ts';

// The checks shared by creating a monitor and changing its configuration:
// a valid preview of the account, targets that fit the plan and that the
// preview's capture confirms, and an interval and a schedule the plan allows.

export async function requirePreview(tx: Queryable, accountId: string, previewId: string, at: Date): Promise<PreviewRow> {
  const preview = await findValidPreview(tx, accountId, previewId, at);
  if (!preview) {
    throw new AppError('preview_invalid', 'preview_id is unknown, expired or discarded; load a fresh preview', {
      details: [{ field: 'preview_id', message: 'not a valid preview of this account' }],
    });
  }
  return preview;
}

/** Labels default to the target id, so every target has a display label. */
export function normaliseTargets(targets: Target[]): Target[] {
  return targets.map((t) => ({ ...t, label: t.label ?? t.id }));
}

export async function assertConfiguration(
  loaders: Loaders,
  plan: Plan,
  preview: PreviewRow,
  targets: Target[],
  cadence: { intervalMinutes: number; schedule: MonitorSchedule | null; at: Date },
): Promise<void> {
  assertTargetsConfigured(targets, plan);
  const { intervalMinutes, schedule } = cadence;
  const minimum = Math.max(1, plan.min_interval_minutes[preview.load_mode]);
  if (intervalMinutes < minimum) {
    throw new AppError('validation_failed', `interval_minutes must be at least ${minimum} for ${preview.load_mode} monitors`, {
      details: [{ field: 'interval_minutes', message: `at least ${minimum}` }],
    });
  }
  const problems = schedule === null ? [] : scheduleProblems(schedule, intervalMinutes, minimum, cadence.at);
  if (problems.length > 0) {
    throw new AppError('validation_failed', `the schedule is invalid: ${problems[0]!.message}`, { details: problems });
  }
  // Creation repeats target validation against the preview's capture.
  const details = (await evaluateTargets(loaders, preview, targets)).flatMap((result, index) =>
    result.issues.map((issue) => ({ field: `targets[${index}]`, message: `${issue.code}: ${issue.message}` })),
  );
  if (details.length > 0) {
    throw new AppError('target_invalid', 'the preview does not confirm every target', { details });
  }
}
