import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { monitorExport, type ExportedMonitor } from '../domain/imports/pagewatch-export.ts';
import { ImportSourceError, readImportSource } from '../domain/imports/import-source.ts';
import {
  LONGEST_WAIT_SECONDS,
  refusalText,
  runImport,
  type ImportLine,
  type ImportPort,
  type ImportRefusal,
} from '../services/monitor-import.ts';

// `pagewatch export FILE` and `pagewatch import FILE`: an account's monitors
// through the public API with the account's own token (PAGEWATCH_URL,
// PAGEWATCH_TOKEN), so an import is checked, spaced and charged exactly as the
// API checks, spaces and charges previews and monitors.

/** Waits for one request before it counts as refused: a server whose clock stands still never lets it through. */
const MOST_WAITS = 5;

interface Api {
  base: string;
  token: string;
}

interface Answer {
  status: number;
  body: {
    data?: unknown;
    meta?: { next_cursor: string | null };
    error?: { code: string; message: string; details?: { field: string; message: string }[] };
  };
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

const refused = (answer: Answer): ImportRefusal => ({
  status: answer.status,
  code: answer.body.error?.code ?? '',
  message: answer.body.error?.message ?? '',
  details: answer.body.error?.details ?? [],
  retryAfter: answer.retryAfter,
});

async function allMonitors(api: Api): Promise<ExportedMonitor[]> {
  const monitors: ExportedMonitor[] = [];
  let cursor: string | null = null;
  do {
    const answer = await call(api, 'GET', `/monitors?limit=100${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`);
    if (answer.status !== 200) throw new Error(`listing the monitors: ${refusalText(refused(answer))}`);
    monitors.push(...(answer.body.data as ExportedMonitor[]));
    cursor = answer.body.meta?.next_cursor ?? null;
  } while (cursor !== null);
  return monitors;
}

export async function exportCommand(file: string | undefined, api: Api | null): Promise<number> {
  if (!file || !api) return usage('usage: PAGEWATCH_URL=… PAGEWATCH_TOKEN=<API token with monitors:read> pagewatch export FILE');
  if (existsSync(file)) return fail(`${file} exists: an export is never written over a file`);
  const document = monitorExport(await allMonitors(api), new Date());
  const monitors = document.monitors;
  writeFileSync(file, `${JSON.stringify(document, null, 2)}\n`, { flag: 'wx' });
  console.log(`exported ${monitors.length} monitor${monitors.length === 1 ? '' : 's'} to ${file}`);
  return 0;
}

/** The import's way to the account: the public API with the account's token. */
function apiPort(api: Api): ImportPort {
  const created = (answer: Answer) => (answer.status === 201 ? { id: (answer.body.data as { id: string }).id } : refused(answer));
  return {
    existingUrls: async () => new Set((await allMonitors(api)).map((m) => m.url)),
    preview: async (body) => created(await call(api, 'POST', '/previews', body)),
    create: async (body) => created(await call(api, 'POST', '/monitors', body)),
    wait: (seconds) => new Promise((resolve) => setTimeout(resolve, seconds * 1000)),
  };
}

function printLine(line: ImportLine): void {
  if (line.kind === 'waiting') {
    console.log(`  waiting ${line.seconds} s for the next preview (the plan spaces them)`);
    return;
  }
  const at = `[${line.at}/${line.total}] ${line.url}`;
  if (line.kind === 'exists') console.log(`${at}: exists, skipped`);
  else if (line.kind === 'not_created') console.log(`${at}: not created, ${line.reason}`);
  else {
    console.log(`${at}: created`);
    for (const note of line.notCarried) console.log(`    not carried over: ${note}`);
  }
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
  const summary = await runImport(plan, apiPort(api), printLine);
  const lines = [`created ${summary.created}, existing ${summary.existing}, not created ${summary.notCreated.length}`];
  for (const { url, reason } of summary.notCreated) lines.push(`  not created: ${url}: ${reason}`);
  for (const entry of summary.skipped) lines.push(`  skipped ${entry.source}: ${entry.reason}`);
  console.log(lines.join('\n'));
  return summary.notCreated.length === 0 ? 0 : 1;
}

function usage(text: string): number {
  console.error(text);
  return 2;
}

function fail(text: string): number {
  console.error(`pagewatch: ${text}`);
  return 1;
}
