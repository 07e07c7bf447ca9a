import { AppError, type FieldDetail } from '../errors.ts';
import type { LoadMode } from '../domain/load-mode.ts';
import type { Plan } from '../domain/plans.ts';
import { validateStepList } from '../domain/step-rules.ts';
import { sameSteps, type Step } from '../domain/steps.ts';
import type { GuardPolicy } from '../fetch/ssrf/guard.ts';
import { vetUrl } from '../fetch/ssrf/guard.ts';
import type { PreviewRow } from '../store/previews-store.ts';

// The checks of a step list shared by previews, evaluations, creation and
// changes (issue #42): the list's own rules (domain/step-rules.ts), goto
// addresses through the SSRF guard, and that a monitor's steps are the ones
// its preview was loaded with, all of which succeeded.

/** 422 validation_failed naming each field at fault. */
export function assertStepsConfigured(
  steps: readonly Step[],
  where: { loadMode: LoadMode; url: string; plan: Plan; policy: GuardPolicy },
): void {
  const details: FieldDetail[] = validateStepList(steps, {
    loadMode: where.loadMode,
    pageUrl: new URL(where.url),
    maxSteps: where.plan.steps_per_monitor,
  });
  steps.forEach((step, index) => {
    if (step.action !== 'goto' || step.url === undefined || !URL.canParse(step.url)) return;
    const vetted = vetUrl(step.url, where.policy);
    if (!vetted.ok) details.push({ field: `steps[${index}].url`, message: `not a public web address: ${vetted.reason}` });
  });
  if (details.length > 0) throw new AppError('validation_failed', 'one or more steps are not configured correctly', { details });
}

/** A monitor's steps must be those its preview was loaded with, and all of them must have succeeded there. */
export function assertPreviewSteps(preview: PreviewRow, steps: readonly Step[]): void {
  if (!sameSteps(preview.steps, steps)) {
    throw new AppError('preview_invalid', 'the preview was loaded with other steps; load a fresh preview with these steps', {
      details: [{ field: 'steps', message: `the preview ran ${preview.steps.length} other steps` }],
    });
  }
  if (preview.step_failed) {
    throw new AppError('preview_invalid', 'a step failed in the preview; fix the steps and load a fresh preview', {
      details: [{ field: 'preview_id', message: 'the preview has the issue step_failed' }],
    });
  }
}
