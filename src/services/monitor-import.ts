import type { ImportPlan, MonitorDraft, SkippedEntry } from '../domain/imports/monitor-draft.ts';
import type { MonitorSchedule } from '../domain/monitor-schedule.ts';
import type { Step } from '../domain/steps.ts';

// The import of an import file's monitors, one copy for the CLI (over the
// public API with a token) and the dashboard (the same services in-process):
// each monitor is previewed, then created from that preview in one request
// (a paused one paused by it), so it is there whole or not at all; what the
// account already watches is skipped (idempotent by URL); the plan's preview
// spacing is waited out.

/** Minutes between checks for an imported monitor whose source left it to a default. */
export const DEFAULT_INTERVAL_MINUTES = 60;
/** A refusal for longer than this (the day's or month's previews used up) is not waited out. */
export const LONGEST_WAIT_SECONDS = 120;
/** Waits for one preview before it counts as refused: a server whose clock stands still never lets it through. */
const MOST_WAITS = 5;

/** A refusal as the API answers it. */
export interface ImportRefusal {
  status: number;
  code: string;
  message: string;
  /** the fields the API named, each with what is wrong with it */
  details: { field: string; message: string }[];
  /** seconds, from Retry-After */
  retryAfter: number | null;
}

/** The body of the preview request for a draft, as POST /previews takes it. */
export interface ImportPreviewBody {
  url: string;
  load_mode: MonitorDraft['load_mode'];
  steps?: Step[];
  proxy?: string;
}

/** The body of the create-monitor request for a draft, as POST /monitors takes it. */
export interface ImportCreateBody {
  preview_id: string;
  targets: MonitorDraft['targets'];
  name?: string;
  labels: string[];
  interval_minutes: number;
  schedule?: MonitorSchedule;
  steps?: Step[];
  proxy?: string;
  notifications?: NonNullable<MonitorDraft['notifications']>;
  status?: 'paused';
}

/** How the import reaches an account: the public API, or the services behind it. */
export interface ImportPort {
  /** the URLs the account watches now */
  existingUrls(): Promise<Set<string>>;
  preview(body: ImportPreviewBody): Promise<{ id: string } | ImportRefusal>;
  create(body: ImportCreateBody): Promise<{ id: string } | ImportRefusal>;
  /** resolves after the seconds, or rejects when the import is abandoned */
  wait(seconds: number): Promise<void>;
}

export type ImportLine =
  | { kind: 'waiting'; url: string; seconds: number }
  | { kind: 'created'; at: number; total: number; url: string; notCarried: string[] }
  | { kind: 'exists'; at: number; total: number; url: string }
  | { kind: 'not_created'; at: number; total: number; url: string; reason: string };

export interface ImportSummary {
  created: number;
  existing: number;
  notCreated: { url: string; reason: string }[];
  /** entries of the source that gave no monitor at all */
  skipped: SkippedEntry[];
}

/** A refusal in one line, with the fields it names: "the preview does not confirm every target" alone leaves the user guessing. */
export function refusalText(r: ImportRefusal): string {
  const details = r.details.map((d) => `${d.field}: ${d.message}`).join('; ');
  return `${r.status} ${r.code}: ${r.message}${details === '' ? '' : ` (${details})`}`;
}

const isRefusal = (answer: { id: string } | ImportRefusal): answer is ImportRefusal => !('id' in answer);

/** Steps and proxy go into the preview too: the API creates a monitor only from a preview loaded as its checks will be. */
export function previewBody(draft: MonitorDraft): ImportPreviewBody {
  return {
    url: draft.url,
    load_mode: draft.load_mode,
    ...(draft.steps?.length ? { steps: draft.steps } : {}),
    ...(draft.proxy ? { proxy: draft.proxy } : {}),
  };
}

export function createBody(draft: MonitorDraft, previewId: string): ImportCreateBody {
  return {
    preview_id: previewId,
    targets: draft.targets,
    ...(draft.name === null ? {} : { name: draft.name }),
    labels: draft.labels,
    interval_minutes: draft.interval_minutes ?? DEFAULT_INTERVAL_MINUTES,
    ...(draft.schedule ? { schedule: draft.schedule } : {}),
    ...(draft.steps?.length ? { steps: draft.steps } : {}),
    ...(draft.proxy ? { proxy: draft.proxy } : {}),
    ...(draft.notifications ? { notifications: draft.notifications } : {}),
    ...(draft.status === 'paused' ? { status: 'paused' as const } : {}),
  };
}

/** A preview of the draft's URL, waiting out the plan's spacing; a refusal says why there is none. */
async function preview(port: ImportPort, draft: MonitorDraft, report: (line: ImportLine) => void) {
  for (let waits = 0; ; waits++) {
    const answer = await port.preview(previewBody(draft));
    if (!isRefusal(answer)) return answer;
    const wait = answer.retryAfter ?? 0;
    if (answer.status !== 429 || answer.code !== 'preview_limited' || wait > LONGEST_WAIT_SECONDS || waits === MOST_WAITS) return answer;
    report({ kind: 'waiting', url: draft.url, seconds: wait });
    await port.wait(wait);
  }
}

/** Creates the draft's monitor from one preview, in one request; a string is why it is not there. */
async function create(port: ImportPort, draft: MonitorDraft, previewId: string): Promise<string | null> {
  const answer = await port.create(createBody(draft, previewId));
  return isRefusal(answer) ? refusalText(answer) : null;
}

/** Imports the plan's drafts in order, reporting a line as each is done; an aborted signal leaves the rest not tried. */
export async function runImport(
  plan: ImportPlan,
  port: ImportPort,
  report: (line: ImportLine) => void,
  signal?: AbortSignal,
): Promise<ImportSummary> {
  const existing = await port.existingUrls();
  const summary: ImportSummary = { created: 0, existing: 0, notCreated: [], skipped: plan.skipped };
  const total = plan.drafts.length;
  let stopped: string | null = null;
  for (const [index, draft] of plan.drafts.entries()) {
    const at = index + 1;
    if (signal?.aborted) stopped = 'not tried, the import was abandoned';
    if (stopped) {
      summary.notCreated.push({ url: draft.url, reason: stopped });
      continue;
    }
    if (existing.has(draft.url)) {
      summary.existing++;
      report({ kind: 'exists', at, total, url: draft.url });
      continue;
    }
    const previewed = await preview(port, draft, report);
    // Refused for longer than is waited out: the previews have run out for now.
    if (isRefusal(previewed) && previewed.status === 429) stopped = 'not tried, the previews ran out';
    const problem = isRefusal(previewed) ? `preview refused: ${refusalText(previewed)}` : await create(port, draft, previewed.id);
    if (problem !== null) {
      summary.notCreated.push({ url: draft.url, reason: problem });
      report({ kind: 'not_created', at, total, url: draft.url, reason: problem });
      continue;
    }
    summary.created++;
    existing.add(draft.url);
    report({ kind: 'created', at, total, url: draft.url, notCarried: draft.not_carried });
  }
  return summary;
}
