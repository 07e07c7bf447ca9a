import type { MonitorSchedule } from '../monitor-schedule.ts';
import type { Step } from '../steps.ts';
import type { Target } from '../targets.ts';

// A monitor as an import file describes it, before the API has seen it:
// previewing its URL and creating it are the import's work; what the source
// had that pagewatch cannot carry over is listed beside it.

export interface MonitorDraft {
  url: string;
  name: string | null;
  labels: string[];
  /** null: the plan's default */
  interval_minutes: number | null;
  load_mode: 'html' | 'browser';
  targets: Target[];
  status: 'active' | 'paused';
  /** when checks run; absent or null: every interval, around the clock */
  schedule?: MonitorSchedule | null;
  /** browser mode: the steps run before the page is read, in the preview as in every check */
  steps?: Step[];
  /** the name of an operator proxy the page is loaded through; the importing install must have it */
  proxy?: string | null;
  /** notification settings of a pagewatch export (channels excepted: they belong to the exporting account) */
  notifications?: { email_enabled?: boolean; email_mode?: string | null; webhook_enabled?: boolean; failing_after?: number };
  /** what the source had that this monitor does not, one sentence each */
  not_carried: string[];
}

/** An entry of the source that gives no monitor at all, and why. */
export interface SkippedEntry {
  source: string;
  reason: string;
}

export interface ImportPlan {
  drafts: MonitorDraft[];
  skipped: SkippedEntry[];
}

/** The whole page's text, for a source entry that watched the page without narrowing it. */
export const WHOLE_PAGE: Target = { id: 'page', kind: 'text', selection: { scope: 'page' }, rule: 'changed' };

export const MAX_NAME = 200;
export const MAX_LABEL = 50;
export const MAX_LABELS = 20;
export const MAX_INTERVAL_MINUTES = 10_080;

export function isWebUrl(text: string): boolean {
  return URL.canParse(text) && /^https?:$/.test(new URL(text).protocol);
}

/** Labels as the API takes them: trimmed, cut to length, unique, at most 20. */
export function cleanLabels(raw: string[]): string[] {
  const labels = raw.map((l) => l.trim().slice(0, MAX_LABEL)).filter((l) => l.length > 0);
  return [...new Set(labels)].slice(0, MAX_LABELS);
}
