import type { MonitorSchedule } from '../monitor-schedule.ts';
import type { Step } from '../steps.ts';
import type { Target } from '../targets.ts';
import { cleanLabels, isWebUrl, MAX_NAME, type ImportPlan, type MonitorDraft, type SkippedEntry } from './monitor-draft.ts';

// pagewatch's own export of an account's monitors: what `pagewatch export`
// writes and `pagewatch import` reads back, in another account or install.
// No secrets and no ids: channels and webhooks belong to the account, and
// steps name the secrets they type, never their values. schedule, steps and
// proxy came after the first files were written: absent, they mean none.

export const EXPORT_FORMAT = 'pagewatch-monitors';
export const EXPORT_VERSION = 1;

export interface ExportedMonitor {
  url: string;
  name: string | null;
  labels: string[];
  load_mode: 'html' | 'browser';
  interval_minutes: number;
  targets: Target[];
  /** absent in files exported before it was carried: none */
  schedule?: MonitorSchedule | null;
  /** absent in files exported before they were carried: none */
  steps?: Step[];
  /** the operator proxy's name; absent in files exported before it was carried: directly */
  proxy?: string | null;
  status: 'active' | 'paused';
  /** email_mode null: the importing account's own mode */
  notifications: { email_enabled: boolean; email_mode: string | null; webhook_enabled: boolean; failing_after: number };
}

export interface MonitorExport {
  format: typeof EXPORT_FORMAT;
  version: number;
  exported_at: string;
  monitors: ExportedMonitor[];
}

/** The export of monitors as the API shows them: what the file carries and nothing else (no ids, channels, secrets). */
export function monitorExport(monitors: ExportedMonitor[], at: Date): MonitorExport {
  return {
    format: EXPORT_FORMAT,
    version: EXPORT_VERSION,
    exported_at: at.toISOString(),
    monitors: monitors.map((m) => {
      const { email_enabled, email_mode, webhook_enabled, failing_after } = m.notifications;
      return {
        url: m.url,
        name: m.name,
        labels: m.labels,
        load_mode: m.load_mode,
        interval_minutes: m.interval_minutes,
        targets: m.targets,
        schedule: m.schedule ?? null,
        steps: m.steps ?? [],
        proxy: m.proxy ?? null,
        status: m.status,
        notifications: { email_enabled, email_mode, webhook_enabled, failing_after },
      };
    }),
  };
}

export function isMonitorExport(document: unknown): document is MonitorExport {
  return typeof document === 'object' && document !== null && (document as { format?: unknown }).format === EXPORT_FORMAT;
}

export function draftsFromExport(document: MonitorExport, maxMonitors: number): ImportPlan {
  if (document.version !== EXPORT_VERSION || !Array.isArray(document.monitors)) {
    throw new Error(`a pagewatch export of version ${String(document.version)}, which this version does not read (${EXPORT_VERSION})`);
  }
  const drafts: MonitorDraft[] = [];
  const skipped: SkippedEntry[] = [];
  const seen = new Set<string>();
  document.monitors.forEach((m, index) => {
    const source = `monitor ${index + 1}`;
    const url = typeof m?.url === 'string' ? m.url : '';
    if (!isWebUrl(url)) skipped.push({ source, reason: 'no http:// or https:// URL' });
    else if (seen.has(url)) skipped.push({ source, reason: `a second monitor of ${url}` });
    else if (drafts.length >= maxMonitors) skipped.push({ source, reason: `more than ${maxMonitors} monitors in one import` });
    else {
      seen.add(url);
      drafts.push({
        url,
        name: typeof m.name === 'string' ? m.name.slice(0, MAX_NAME) : null,
        labels: cleanLabels(Array.isArray(m.labels) ? m.labels.filter((l) => typeof l === 'string') : []),
        interval_minutes: Number.isInteger(m.interval_minutes) ? m.interval_minutes : null,
        load_mode: m.load_mode === 'browser' ? 'browser' : 'html',
        // Checked by the API when the monitor is created, like any request's targets.
        targets: Array.isArray(m.targets) ? m.targets : [],
        // The schedule, steps and proxy are checked by the API too; a file without them means none.
        schedule: typeof m.schedule === 'object' && m.schedule !== null ? m.schedule : null,
        steps: Array.isArray(m.steps) ? m.steps : [],
        proxy: typeof m.proxy === 'string' ? m.proxy : null,
        status: m.status === 'paused' ? 'paused' : 'active',
        notifications: typeof m.notifications === 'object' && m.notifications !== null ? m.notifications : undefined,
        not_carried: [],
      });
    }
  });
  return { drafts, skipped };
}
