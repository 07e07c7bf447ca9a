import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { openDatabase } from '../src/store/open-database.ts';
import { createAccount, insertMonitors } from './lib/seed.ts';
import { sleep } from './lib/measure.ts';
import { fmt, mib, publish, ratio, table, type Cell } from './lib/report.ts';
import { openBenchStore, postgresAvailable } from './lib/stores.ts';

// Footprint of a small install (issue #44): resident memory at rest and at its
// peak, and the time from starting `pagewatch serve` (what `npm start` runs)
// to the first 200 from /readyz. Measured from outside, from /proc, as an
// operator's `ps` sees it; every thread (PGlite's, the extraction threads) is
// part of the one process. Baseline: a bare Fastify process answering /readyz.
// The parts are measured apart, by a probe that adds them one at a time.
// BENCH_FOOTPRINT_BEFORE: another install (a clone of an earlier commit, with
// its node_modules) measured the same way in the same run, as "before".
// BENCH_FOOTPRINT_MONITORS: monitor counts besides the empty install (default 1000).

const ROOT = resolve(import.meta.dirname, '..');
const BEFORE = process.env.BENCH_FOOTPRINT_BEFORE ? resolve(process.env.BENCH_FOOTPRINT_BEFORE) : null;
const COUNTS = (process.env.BENCH_FOOTPRINT_MONITORS ?? '1000')
  .split(',')
  .map(Number)
  .filter((n) => n > 0);
const REST_SETTLE_MS = 5_000;

interface Status {
  rss: number;
  peak: number;
}

function status(pid: number): Status {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(text)?.[1] ?? 0) * 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}

interface Start {
  readyMs: number;
  peak: number;
  rest: number;
}

function listening(child: ChildProcess): Promise<string> {
  return new Promise((resolveUrl, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`not listening within 300 s:\n${output}`)), 300_000);
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/[^\s]+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolveUrl(match[1]!);
      }
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.once('exit', (code) => reject(new Error(`exited (${code}) before listening:\n${output}`)));
  });
}

/** Starts `command` in `cwd`, times it to /readyz 200, loads it lightly, lets it rest and reads its memory. */
async function measureStart(command: string[], cwd: string, env: Record<string, string>): Promise<Start> {
  const started = performance.now();
  const child = spawn(command[0]!, command.slice(1), {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    const url = await listening(child);
    while ((await fetch(`${url}/readyz`).catch(() => null))?.status !== 200) await sleep(10);
    const readyMs = performance.now() - started;
    for (let i = 0; i < 50; i++) for (const path of ['/healthz', '/readyz', '/sign-in']) await (await fetch(`${url}${path}`)).arrayBuffer();
    await sleep(REST_SETTLE_MS);
    const { rss, peak } = status(child.pid!);
    return { readyMs, peak, rest: rss };
  } finally {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
}

const SERVE = [process.execPath, 'bin/pagewatch.js', 'serve'];

const BARE_FASTIFY = `import Fastify from 'fastify';
const app = Fastify();
app.get('/readyz', async () => ({ ok: true }));
app.get('/healthz', async () => ({ ok: true }));
app.get('/sign-in', async () => 'login');
console.log('listening on ' + (await app.listen({ host: '127.0.0.1', port: 0 })));`;

/** An embedded store's data directory with `monitors` monitors, none due while measured. */
async function seededDataDir(monitors: number): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'pagewatch-footprint-'));
  if (monitors === 0) return dir;
  const db = await openDatabase({ databaseUrl: null, dataDir: dir });
  try {
    await seed(db, monitors);
  } finally {
    await db.close();
  }
  return dir;
}

async function seed(db: Parameters<typeof createAccount>[0], monitors: number): Promise<void> {
  const accountId = await createAccount(db);
  const tomorrow = new Date(Date.now() + 86_400_000);
  await insertMonitors(db, {
    accountId,
    loadMode: 'html',
    intervalMinutes: 60,
    targets: [{ id: 'price', type: 'css', selector: '.price' }] as never,
    monitors: Array.from({ length: monitors }, (_, i) => ({ url: `http://127.0.0.1:9/p/${i}`, nextCheckAt: tomorrow })),
  });
}

interface Row {
  install: string;
  store: string;
  monitors: number;
  start: 'first' | 'warm';
  result: Start;
}

/** A measured row, printed at once so a later failure does not lose it. */
function row(install: string, store: string, monitors: number, start: Row['start'], result: Start): Row {
  console.log(JSON.stringify({ install, store, monitors, start, ...result }));
  return { install, store, monitors, start, result };
}

async function measureInstall(label: string, root: string): Promise<Row[]> {
  const rows: Row[] = [];
  for (const monitors of [0, ...COUNTS]) {
    const dir = await seededDataDir(monitors);
    try {
      // An empty install's first start creates its data directory; a seeded one exists already.
      if (monitors === 0) rows.push(row(label, 'PGlite', monitors, 'first', await measureStart(SERVE, root, { PAGEWATCH_DATA_DIR: dir })));
      rows.push(row(label, 'PGlite', monitors, 'warm', await measureStart(SERVE, root, { PAGEWATCH_DATA_DIR: dir })));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    if (!(await postgresAvailable())) continue;
    const store = await openBenchStore('postgres');
    try {
      if (monitors > 0) await seed(store.db, monitors);
      rows.push(row(label, 'PostgreSQL', monitors, 'warm', await measureStart(SERVE, root, { DATABASE_URL: store.databaseUrl! })));
    } finally {
      await store.close();
    }
  }
  return rows;
}

// The probe: one process adds the parts in turn and reports its resident memory after each.
// `ts` runs the sources through tsx, as bin/pagewatch.js did before #44; `js` the compiled output.
function probeScript(mode: 'ts' | 'js', dataDir: string): string {
  const module = (path: string) => JSON.stringify(pathToFileURL(join(ROOT, mode === 'ts' ? `src/${path}.ts` : `dist/${path}.js`)).href);
  return `import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc');
const report = (part) => { gc(); console.log(JSON.stringify({ part, rss: process.memoryUsage().rss })); };
report('node');
${mode === 'ts' ? `(await import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))})).register();` : ''}
report('loader');
// serve's modules: the command line loads each command's own on demand.
await import(${module('cli/main')});
await import(${module('server')});
report('modules');
const { openDatabase } = await import(${module('store/open-database')});
const db = await openDatabase({ databaseUrl: null, dataDir: ${JSON.stringify(dataDir)} });
await db.query('SELECT 1');
report('store');
const { ExtractionPool } = await import(${module('extraction/extraction-pool')});
const pool = new ExtractionPool();
await pool.preview('<html><title>t</title><p class="price">1</p></html>', 'http://127.0.0.1/', { lane: 'check', account: 'a' });
report('extraction');
await pool.close();
await db.close();`;
}

function probe(mode: 'ts' | 'js'): Map<string, number> {
  const dir = mkdtempSync(join(tmpdir(), 'pagewatch-footprint-probe-'));
  try {
    // A data directory created beforehand: initdb's memory is the first start's, not the store's at rest.
    const script = join(dir, 'probe.mjs');
    writeFileSync(script, probeScript(mode, join(dir, 'data')));
    const setup = spawnSync(process.execPath, [script], { encoding: 'utf8' });
    if (setup.status !== 0) throw new Error(setup.stderr);
    const run = spawnSync(process.execPath, [script], { encoding: 'utf8' });
    if (run.status !== 0) throw new Error(run.stderr);
    const parts = new Map<string, number>();
    for (const line of run.stdout.trim().split('\n')) {
      const { part, rss } = JSON.parse(line) as { part: string; rss: number };
      parts.set(part, rss);
    }
    return parts;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const PART_NAMES: [string, string][] = [
  ['node', 'Node itself (an empty isolate)'],
  ['loader', 'TypeScript loader (tsx registered)'],
  ['modules', "the main isolate's code: pagewatch and its dependencies loaded"],
  ['store', 'PGlite: its thread and WebAssembly heap (a data directory that exists)'],
  ['extraction', 'extraction threads (2, after one job)'],
];

function partsTable(): string {
  try {
    return measuredParts();
  } catch (err) {
    return `Not measured: the probe failed (${(err as Error).message.split('\n')[0]}).`;
  }
}

function measuredParts(): string {
  const modes = (['ts', 'js'] as const).filter((m) => m === 'ts' || existsSync(join(ROOT, 'dist', 'cli', 'main.js')));
  const measured = modes.map((m) => probe(m));
  const rows: Cell[][] = PART_NAMES.map(([part, name], i) => [
    name,
    ...measured.map((parts) => {
      const previous = i === 0 ? 0 : parts.get(PART_NAMES[i - 1]![0])!;
      return mib(parts.get(part)! - previous);
    }),
  ]);
  rows.push(['total', ...measured.map((parts) => mib(parts.get('extraction')!))]);
  return table(['part (added in this order)', ...modes.map((m) => (m === 'ts' ? 'sources through tsx' : 'compiled JavaScript'))], rows);
}

const installs: [string, string][] = [['this commit', ROOT]];
if (BEFORE) installs.unshift(['before', BEFORE]);
const rows: Row[] = [];
for (const [label, root] of installs) rows.push(...(await measureInstall(label, root)));
const bare = await measureStart([process.execPath, '--input-type=module', '-e', BARE_FASTIFY], ROOT, {});

const body: Cell[][] = [
  ['bare Fastify (baseline)', '–', 0, 'warm', `${fmt(bare.readyMs / 1000, 2)} s`, mib(bare.peak), mib(bare.rest), '1.00×'],
  ...rows.map((r) => [
    r.install,
    r.store,
    r.monitors.toLocaleString('en-US'),
    r.start,
    `${fmt(r.result.readyMs / 1000, 2)} s`,
    mib(r.result.peak),
    mib(r.result.rest),
    ratio(r.result.rest, bare.rest),
  ]),
];

publish(
  'footprint',
  `## 9. Footprint: memory and start-up of a small install

\`node bin/pagewatch.js serve\` (what \`npm start\` runs) started with a data directory (PGlite) or a migrated schema
(PostgreSQL); "first" is an empty install's first start, which creates the data directory. Start-up: from spawning
the process to the first 200 from \`/readyz\`. Peak: the process's high-water resident memory (VmHWM) over start-up
and a light load (150 requests to /healthz, /readyz and /sign-in); at rest: its resident memory ${REST_SETTLE_MS / 1000} s
after that load. Every thread (PGlite's, the extraction threads) is part of the one process. Seeded monitors are
due tomorrow, so nothing is checked while measuring. Baseline: a bare Fastify process answering the same routes.
${BEFORE ? 'Rows "before": the install named by BENCH_FOOTPRINT_BEFORE, measured in the same run. ' : ''}Parameters: BENCH_FOOTPRINT_MONITORS, BENCH_FOOTPRINT_BEFORE.

${table(['install', 'store', 'monitors', 'start', 'to /readyz 200', 'peak RSS', 'RSS at rest', 'at rest vs bare Fastify'], body)}

Where the memory goes, embedded store, measured apart: one process adds the parts in turn, with a full garbage
collection before each reading (resident memory added by each part):

${partsTable()}
`,
);
