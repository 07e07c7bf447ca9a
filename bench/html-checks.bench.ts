import { performance } from 'node:perf_hooks';
import { parseDocument } from 'htmlparser2';
import { request } from 'undici';
import { extractTarget, parsePage, readsPageText } from '../src/domain/extract/index.ts';
import { rescheduleMonitors } from '../src/store/monitor-checks-store.ts';
import { benchEngine, benchLoaders, PRODUCTION_TICK_SECONDS, TICK_SECONDS } from './lib/engine.ts';
import { pool, waitFor } from './lib/measure.ts';
import { portsForConcurrency, startPageServer } from './lib/page-server.ts';
import { PRODUCT_TARGETS } from './lib/pages.ts';
import { fmt, publish, ratio, table, type Cell } from './lib/report.ts';
import { createAccount, insertMonitors } from './lib/seed.ts';
import { openBenchStore, postgresAvailable, STORE_LABELS, type StoreKind } from './lib/stores.ts';

// Item 2: html checks/s of the worker on ~100 KB product pages with three
// targets, against the work any check must do: fetching the same pages with
// undici.request and parsing each with htmlparser2's parseDocument, at the
// same concurrency (issue #14). Fetching alone is shown for context. And
// extraction time per page against htmlparser2 alone.
//
//   BENCH_HTML_PAGES        pages/monitors (default 1000)
//   BENCH_HTML_CONCURRENCY  checks at once, engine and baseline alike (default 8)
//   BENCH_HTML_LIMIT_S      longest run of one store; the rate is then checks done / time (default 60)
//   BENCH_HTML_ROUNDS       rounds of the baseline and every engine run in turn; the median counts (default 3)
//   BENCH_TICK_SECONDS      scheduler cycle (default 1; one more PGlite run uses production's 60)

const PAGES = Number(process.env.BENCH_HTML_PAGES ?? 1000);
const CONCURRENCY = Number(process.env.BENCH_HTML_CONCURRENCY ?? 8);
const LIMIT_MS = Number(process.env.BENCH_HTML_LIMIT_S ?? 60) * 1000;
const ROUNDS = Number(process.env.BENCH_HTML_ROUNDS ?? 3);
const EXTRACTION_ROUNDS = 5;
const EXTRACTION_SAMPLE = 200;

const server = await startPageServer({ ports: portsForConcurrency(CONCURRENCY) });
const urls = Array.from({ length: PAGES }, (_, n) => `${server.bases[n % server.bases.length]}/product/${n}.html`);

/** Every page fetched with `concurrency` requests at once; with `parse`, each also parsed as it arrives. */
async function fetchAll(parse: boolean): Promise<{ seconds: number; bytes: number; pages: string[] }> {
  const pages: string[] = new Array(PAGES);
  let bytes = 0;
  const started = performance.now();
  await pool(PAGES, CONCURRENCY, async (i) => {
    const res = await request(urls[i]!);
    pages[i] = await res.body.text();
    bytes += Buffer.byteLength(pages[i]);
    if (parse) parseDocument(pages[i]);
  });
  return { seconds: (performance.now() - started) / 1000, bytes, pages };
}

/** As many other pages of the same shape, for the engine's warm-up: the measured checks still write their texts afresh. */
const warmUpUrls = Array.from({ length: PAGES }, (_, n) => `${server.bases[n % server.bases.length]}/product/${PAGES + n}.html`);

async function engineRun(
  kind: StoreKind,
  tickSeconds: number,
  warm: boolean,
): Promise<{ checksPerSecond: number; done: number; seconds: number }> {
  const store = await openBenchStore(kind);
  const loaders = benchLoaders();
  try {
    if (warm) {
      // The baseline's warm-up, given to the engine too: every warm-up page checked once, untimed, on the same
      // extraction threads, store and event loop, by an engine stopped before the measured one starts.
      await insertMonitors(store.db, {
        accountId: await createAccount(store.db),
        loadMode: 'html',
        intervalMinutes: 60,
        targets: PRODUCT_TARGETS,
        monitors: warmUpUrls.map((url) => ({ url, nextCheckAt: new Date(Date.now() - 1000) })),
      });
      const warmUp = benchEngine(store.db, loaders, CONCURRENCY, tickSeconds);
      warmUp.start();
      await waitFor(async () => (await warmUp.recorded()) >= PAGES, LIMIT_MS, 20);
      await warmUp.stop();
    }
    const accountId = await createAccount(store.db);
    const ids = await insertMonitors(store.db, {
      accountId,
      loadMode: 'html',
      intervalMinutes: 60,
      targets: PRODUCT_TARGETS,
      monitors: urls.map((url) => ({ url, nextCheckAt: new Date(Date.now() + 3_600_000) })),
    });
    const engine = benchEngine(store.db, loaders, CONCURRENCY, tickSeconds);
    // A running service: its start-up housekeeping (on PGlite a VACUUM of every hot table) is done before the monitors fall due.
    await engine.runCycle();
    const due = new Date(Date.now() - 1000);
    await rescheduleMonitors(
      store.db,
      ids.map((id) => ({ id, nextCheckAt: due })),
    );
    const started = performance.now();
    engine.start();
    await waitFor(async () => (await engine.recorded()) >= PAGES, LIMIT_MS, 20);
    const done = await engine.recorded();
    const seconds = (performance.now() - started) / 1000;
    await engine.stop();
    return { checksPerSecond: done / seconds, done, seconds };
  } finally {
    await loaders.close();
    await store.close();
  }
}

/** The middle value (the upper one of an even count). */
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

function extractionTimes(pages: string[]): { pagewatchMs: number; parserMs: number } {
  const sample = pages.slice(0, EXTRACTION_SAMPLE);
  const pagewatch: number[] = [];
  const parser: number[] = [];
  // Alternating rounds, so both see the same machine state; the median round counts.
  for (let round = 0; round < EXTRACTION_ROUNDS; round++) {
    let started = performance.now();
    for (const html of sample) parseDocument(html);
    parser.push((performance.now() - started) / sample.length);
    started = performance.now();
    for (const [i, html] of sample.entries()) {
      const page = parsePage(html, urls[i]!, { captureText: readsPageText(PRODUCT_TARGETS) });
      for (const target of PRODUCT_TARGETS) extractTarget(page, target);
    }
    pagewatch.push((performance.now() - started) / sample.length);
  }
  return { pagewatchMs: median(pagewatch), parserMs: median(parser) };
}

try {
  await fetchAll(true); // warm-up: the page server builds each page once, and the parser gets compiled
  const fetched = await fetchAll(false);
  const fetchedRate = PAGES / fetched.seconds;
  const kinds: StoreKind[] = (await postgresAvailable()) ? ['pglite', 'postgres'] : ['pglite'];
  const runs = [
    ...kinds.map((kind) => ({ kind, tick: TICK_SECONDS, warm: true })),
    { kind: 'pglite' as const, tick: PRODUCTION_TICK_SECONDS, warm: true },
    { kind: 'pglite' as const, tick: TICK_SECONDS, warm: false },
  ];
  // Rounds of the baseline and every engine run in turn: each run's ratio is to its own round's baseline, and the
  // median round counts, so a moment of load elsewhere on the machine moves one round, not the figure.
  const baselines: { rate: number; seconds: number; pages: string[] }[] = [];
  const results = runs.map(() => [] as { rate: number; ratio: number; done: number; seconds: number }[]);
  for (let round = 0; round < ROUNDS; round++) {
    const baseline = await fetchAll(true);
    const baselineRate = PAGES / baseline.seconds;
    baselines.push({ rate: baselineRate, seconds: baseline.seconds, pages: baseline.pages });
    for (const [i, { kind, tick, warm }] of runs.entries()) {
      const result = await engineRun(kind, tick, warm);
      results[i]!.push({
        rate: result.checksPerSecond,
        ratio: result.checksPerSecond / baselineRate,
        done: result.done,
        seconds: result.seconds,
      });
    }
  }
  const baselineRate = median(baselines.map((b) => b.rate));
  const spread = (values: number[]) => `${fmt(Math.min(...values), 2)}–${fmt(Math.max(...values), 2)}×`;
  const rows: Cell[][] = [
    [
      'undici fetch + htmlparser2 parse (baseline)',
      fmt(baselineRate),
      '1.00×',
      '',
      `${PAGES} per round in ${baselines.map((b) => fmt(b.seconds)).join(' / ')} s`,
    ],
    [
      'undici.request alone (context)',
      fmt(fetchedRate),
      ratio(fetchedRate, baselineRate),
      '',
      `${PAGES} in ${fmt(fetched.seconds)} s (once)`,
    ],
    ...runs.map(({ kind, tick, warm }, i) => [
      `worker, ${STORE_LABELS[kind]}, cycle ${tick} s${warm ? '' : ', cold start (context)'}`,
      fmt(median(results[i]!.map((r) => r.rate))),
      `${fmt(median(results[i]!.map((r) => r.ratio)), 2)}×`,
      spread(results[i]!.map((r) => r.ratio)),
      results[i]!.map((r) => `${r.done} in ${fmt(r.seconds)} s`).join(' / '),
    ]),
  ];
  const extraction = extractionTimes(baselines[0]!.pages);
  publish(
    'html-checks',
    `## 2. HTML checks

${PAGES} product pages of ${fmt(fetched.bytes / PAGES / 1024, 0)} KB on average, 3 targets per monitor (title text, price, availability),
${CONCURRENCY} checks at once (engine and baselines), fixture site in a child process on
${server.bases.length} loopback ports. The baseline is the work any check must do: fetch each page with undici.request and
parse it with htmlparser2's parseDocument, in the benchmark process, the same pages at the same concurrency, after one
untimed pass over the pages (so the parser is compiled); fetching alone is shown for context. The engine is measured as a
service that is already running, with the same warm-up: an engine on the same store, extraction threads and event loop first
checks ${PAGES} other pages of the same shape, untimed, and stops; then the measured engine runs one cycle with nothing due
(its start-up housekeeping: on PGlite a VACUUM of every hot table), every monitor falls due at once, and the rate is checks
recorded over the time from the engine's start until all ${PAGES} are recorded or ${LIMIT_MS / 1000} s pass (first captures:
baselines are written, no changes). The cold start, shown for context, skips the warm-up: its window also holds the
extraction threads' start and their parser's first, unoptimised runs. The baseline and the
engine runs take turns for ${ROUNDS} rounds; each run's ratio is to the baseline of its own round, and the median round is
shown with the spread of all rounds (this machine is shared and its load moves single runs of a few seconds).

${table(['what', 'pages/s (median round)', 'ratio to baseline (median round)', "rounds' ratios", 'done, per round'], rows)}

Extraction per page (median of ${EXTRACTION_ROUNDS} rounds over ${EXTRACTION_SAMPLE} pages, in the benchmark process):

${table(
  ['what', 'ms/page', 'ratio to baseline'],
  [
    ['htmlparser2 parseDocument alone (baseline)', fmt(extraction.parserMs, 2), '1.00×'],
    ['parsePage + 3 × extractTarget', fmt(extraction.pagewatchMs, 2), ratio(extraction.pagewatchMs, extraction.parserMs)],
  ],
)}

Re-run: \`node bin/run-ts.js bench/html-checks.bench.ts\` (BENCH_HTML_PAGES, BENCH_HTML_CONCURRENCY, BENCH_HTML_LIMIT_S, BENCH_HTML_ROUNDS).`,
  );
} finally {
  await server.close();
}
