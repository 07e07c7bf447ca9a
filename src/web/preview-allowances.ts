import type { AppDeps } from '../http/app-deps.ts';
import type { Principal } from '../services/tokens.ts';
import { getUsage } from '../services/usage.ts';

// What the forms that spend previews (a new monitor, an import) tell the owner
// before they start: the credits used of the day's and the month's, and the
// plan's spacing between two previews.

export interface PreviewAllowances {
  day: string;
  month: string;
  spacingSeconds: number;
}

export async function previewAllowances(deps: AppDeps, principal: Principal): Promise<PreviewAllowances> {
  const usage = await getUsage(deps, principal);
  return {
    day: `${usage.previews.day.used} of ${usage.previews.day.limit} used`,
    month: `${usage.previews.month.used} of ${usage.previews.month.limit} used`,
    spacingSeconds: principal.plan.preview_spacing_seconds,
  };
}
