import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { EXPORT_FORMAT, EXPORT_VERSION, type ExportedMonitor, type MonitorExport } from '../domain/imports/pagewatch-export.ts';
import { ImportSourceError, readImportSource } from '../domain/imports/import-source.ts';
import type { MonitorDraft } from '../domain/imports/monitor-draft.ts';

// `pagewatch export FILE` and `pagewatch import FILE`: an account's monitors
// through the public API with the account's own token (PAGEWATCH_URL,
// PAGEWATCH_TOKEN), so an import is checked, spaced and charged exactly as the
// API checks, spaces and charges previews and monitors.

/** Minutes between checks for an imported monitor whose source left it to a default. */
const DEFAULT_INTERVAL_MINUTES = 60;
/** A refusal for longer than this (the day's or month's previews used up) is not waited out. */
const LONGEST_WAIT_SECONDS = 120;
/** Waits for one request before it counts as refused: a server whose clock stands still never lets it through. */
const MOST_WAITS = 5;

interface Api {
  base: string;
  token: string;
}

interface Answer {
  status: number;
  body: { data?: unknown; meta?: { next_cursor: string | null }; error?: { code: string; message: string } };
  retryAfter: number | null;
}

/** One API request; the account's request limit (429 rate_limited) is waited out, as a patient client does. */
async function call(api: Api, method: string, path: string, body?: unknown): Promise<Answer> {
  for (let waits = 0; ; waits++) {
    const answer = await send(api, method, path, body);
    const wait = answer.retryAfter ?? 0;
    if (answer.status !== 429 || answer.body.error?.code !== 'rate_limited' || wait > LONGEST_WAIT_SECONDS || waits === MOST_WAITS)
      return answer;
    console.log(`  waiting ${wait} s: the account's request limit`);
    await new Promise((resolve) => setTimeout(resolve, wait * 1000));
  }
}

async function send(api: Api, method: string, path: string, body?: unknown): Promise<Answer> {
  const res = await fetch(`${api.base.replace(/\/+$/, '')}/api/v1${path}`, {
    method,
    headers: {
      authorization: `Bearer ${api.token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(method === 'POST' && path === '/monitors' ? { 'idempotency-key': `import-${randomUUID()}` } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  const retryAfter = res.headers.get('retry-after');
  return {
    status: res.status,
    body: text ? (JSON.parse(text) as Answer['body']) : {},
    retryAfter: retryAfter === null ? null : Number(retryAfter),
  };
}

const refusal = (answer: Answer) => `${answer.status} ${answer.body.error?.code ?? ''}: ${answer.body.error?.message ?? ''}`;

async function allMonitors(api: Api): Promise<ExportedMonitor[]> {
  const monitors: ExportedMonitor[] = [];
  let cursor: string | null = null;
  do {
    const answer = await call(api, 'GET', `/monitors?limit=100${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`);
    if (answer.status !== 200) throw new Error(`listing the monitors: ${refusal(answer)}`);
    monitors.push(...(answer.body.data as ExportedMonitor[]));
    cursor = answer.body.meta?.next_cursor ?? null;
  } while (cursor !== null);
  return monitors;
}

function exported(m: ExportedMonitor): ExportedMonitor {
  const { email_enabled, email_mode, webhook_enabled, failing_after } = m.notifications;
  return {
    url: m.url,
    name: m.name,
    labels: m.labels,
    load_mode: m.load_mode,
    interval_minutes: m.interval_minutes,
    targets: m.targets,
    status: m.status,
    notifications: { email_enabled, email_mode, webhook_enabled, failing_after },
  };
}

export async function exportCommand(file: string | undefined, api: Api | null): Promise<number> {
  if (!file || !api) return usage('usage: PAGEWATCH_URL=… PAGEWATCH_TOKEN=<API token with monitors:read> pagewatch export FILE');
  if (existsSync(file)) return fail(`${file} exists: an export is never written over a file`);
  const monitors = (await allMonitors(api)).map(exported);
  const document: MonitorExport = { format: EXPORT_FORMAT, version: EXPORT_VERSION, exported_at: new Date().toISOString(), monitors };
  writeFileSync(file, `${JSON.stringify(document, null, 2)}\n`, { flag: 'wx' });
  console.log(`exported ${monitors.length} monitor${monitors.length === 1 ? '' : 's'} to ${file}`);
  return 0;
}

/** A preview of the draft's URL, waiting out the plan's spacing; a string is why there is none. */
async function preview(api: Api, draft: MonitorDraft): Promise<{ id: string } | { refused: string; stop: boolean }> {
  for (let waits = 0; ; waits++) {
    const answer = await call(api, 'POST', '/previews', { url: draft.url, load_mode: draft.load_mode });
    if (answer.status === 201) return { id: (answer.body.data as { id: string }).id };
    const wait = answer.retryAfter ?? 0;
    if (answer.status !== 429 || answer.body.error?.code !== 'preview_limited' || wait > LONGEST_WAIT_SECONDS || waits === MOST_WAITS) {
      return { refused: refusal(answer), stop: answer.status === 429 };
    }
    console.log(`  waiting ${wait} s for the next preview (the plan spaces them)`);
    await new Promise((resolve) => setTimeout(resolve, wait * 1000));
  }
}

/** Creates the draft's monitor from one preview, in one request: it is there whole or not at all. */
async function create(api: Api, draft: MonitorDraft, previewId: string): Promise<string | null> {
  const answer = await call(api, 'POST', '/monitors', {
    preview_id: previewId,
    targets: draft.targets,
    ...(draft.name === null ? {} : { name: draft.name }),
    labels: draft.labels,
    interval_minutes: draft.interval_minutes ?? DEFAULT_INTERVAL_MINUTES,
    ...(draft.notifications ? { notifications: draft.notifications } : {}),
  });
  if (answer.status !== 201) return refusal(answer);
  if (draft.status === 'paused') {
    const id = (answer.body.data as { id: string }).id;
    const paused = await call(api, 'PATCH', `/monitors/${id}`, { status: 'paused' });
    if (paused.status !== 200) return `created as ${id} but left active, pausing it was refused: ${refusal(paused)}`;
  }
  return null;
}

export async function importCommand(file: string | undefined, api: Api | null): Promise<number> {
  if (!file || !api) return usage('usage: PAGEWATCH_URL=… PAGEWATCH_TOKEN=<API token with monitors:write> pagewatch import FILE');
  let plan;
  try {
    plan = readImportSource(readFileSync(file));
  } catch (err) {
    if (err instanceof ImportSourceError) return fail(err.message);
    throw err;
  }
  const existing = new Set((await allMonitors(api)).map((m) => m.url));
  const failed: string[] = [];
  let created = 0;
  let stopped = false;
  for (const [index, draft] of plan.drafts.entries()) {
    const at = `[${index + 1}/${plan.drafts.length}]`;
    if (stopped) {
      failed.push(`${draft.url}: not tried, the previews ran out`);
      continue;
    }
    if (existing.has(draft.url)) {
      console.log(`${at} ${draft.url}: exists, skipped`);
      continue;
    }
    const previewed = await preview(api, draft);
    const problem = 'id' in previewed ? await create(api, draft, previewed.id) : `preview refused: ${previewed.refused}`;
    if ('refused' in previewed && previewed.stop) stopped = true;
    if (problem !== null) {
      console.log(`${at} ${draft.url}: not created, ${problem}`);
      failed.push(`${draft.url}: ${problem}`);
      continue;
    }
    created++;
    console.log(`${at} ${draft.url}: created`);
    for (const note of draft.not_carried) console.log(`    not carried over: ${note}`);
  }
  const lines = [`created ${created}, existing ${plan.drafts.length - created - failed.length}, not created ${failed.length}`];
  for (const line of failed) lines.push(`  not created: ${line}`);
  for (const entry of plan.skipped) lines.push(`  skipped ${entry.source}: ${entry.reason}`);
  console.log(lines.join('\n'));
  return failed.length === 0 ? 0 : 1;
}

function usage(text: string): number {
  console.error(text);
  return 2;
}

function fail(text: string): number {
  console.error(`pagewatch: ${text}`);
  return 1;
}
