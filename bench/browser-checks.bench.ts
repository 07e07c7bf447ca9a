import { performance } from 'node:perf_hooks';
import { chromium } from 'playwright-core';
import { loadConfig } from '../src/config.ts';
import type { Target } from '../src/domain/targets.ts';
import { benchEngine, benchLoaders } from './lib/engine.ts';
import { pool, sleep, treeRssBytes, waitFor } from './lib/measure.ts';
import { startPageServer } from './lib/page-server.ts';
import { fmt, mib, publish, ratio, table } from './lib/report.ts';
import { createAccount, insertMonitors } from './lib/seed.ts';
import { openBenchStore } from './lib/stores.ts';

// Item 4: browser checks/s and memory on a JavaScript-rendered page
// (test/fixtures/site/shop/rendered-price.html: the price is written by a
// script), against plain playwright-core navigations of the same page on the
// same Chromium at the same concurrency (a fresh context per load, like the loader).
//
//   BENCH_BROWSER_CHECKS       checks, and baseline navigations (default 40)
//   BENCH_BROWSER_CONCURRENCY  loads at once (default 2, the loader's page limit)
//   BENCH_BROWSER_LIMIT_S      longest run of each side (default 120)

const CHECKS = Number(process.env.BENCH_BROWSER_CHECKS ?? 40);
const CONCURRENCY = Number(process.env.BENCH_BROWSER_CONCURRENCY ?? 2);
const LIMIT_MS = Number(process.env.BENCH_BROWSER_LIMIT_S ?? 120) * 1000;
const TARGETS: Target[] = [
  { id: 'name', kind: 'text', selection: { scope: 'selector', selector: '#name' }, rule: 'changed' },
  { id: 'price', kind: 'price', selection: { scope: 'selector', selector: '#price' }, currency: 'USD', rule: 'changed' },
];

const server = await startPageServer();
const urls = Array.from({ length: CHECKS }, (_, i) => `${server.bases[0]}/rendered.html?n=${i}`);

/** Peak resident memory of this process and its Chromium while `work` runs (the page server excluded). */
async function withPeakRss<T>(work: () => Promise<T>): Promise<{ result: T; peakRss: number }> {
  let peak = 0;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      peak = Math.max(peak, treeRssBytes(process.pid) - treeRssBytes(server.pid));
      await sleep(250);
    }
  })();
  try {
    return { result: await work(), peakRss: peak };
  } finally {
    sampling = false;
    await sampler;
  }
}

async function plainPlaywright(): Promise<{ seconds: number; rendered: number }> {
  const browser = await chromium.launch({ executablePath: loadConfig({}).chromiumPath, headless: true });
  let rendered = 0;
  try {
    const started = performance.now();
    await pool(CHECKS, CONCURRENCY, async (i) => {
      const context = await browser.newContext();
      try {
        const page = await context.newPage();
        await page.goto(urls[i]!, { waitUntil: 'load', timeout: LIMIT_MS });
        await page.waitForFunction(() => document.getElementById('price')?.textContent?.includes('$'), undefined, { timeout: 10_000 });
        if ((await page.content()).includes('$249.00')) rendered++;
      } finally {
        await context.close();
      }
    });
    return { seconds: (performance.now() - started) / 1000, rendered };
  } finally {
    await browser.close();
  }
}

async function pagewatch(): Promise<{ seconds: number; done: number; priced: number }> {
  const store = await openBenchStore('pglite');
  const loaders = benchLoaders({ maxBrowserPages: CONCURRENCY });
  try {
    const accountId = await createAccount(store.db);
    const due = new Date(Date.now() - 1000);
    await insertMonitors(store.db, {
      accountId,
      loadMode: 'browser',
      intervalMinutes: 60,
      targets: TARGETS,
      monitors: urls.map((url) => ({ url, nextCheckAt: due })),
    });
    const engine = benchEngine(store.db, loaders, CONCURRENCY);
    const started = performance.now();
    engine.start();
    await waitFor(async () => (await engine.recorded()) >= CHECKS, LIMIT_MS, 20);
    const done = await engine.recorded();
    const seconds = (performance.now() - started) / 1000;
    await engine.stop();
    const priced = await store.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM baselines WHERE target_id = 'price' AND display = '249.00 USD'",
    );
    return { seconds, done, priced: priced[0]!.n };
  } finally {
    await loaders.close();
    await store.close();
  }
}

try {
  const baseline = await withPeakRss(plainPlaywright);
  const measured = await withPeakRss(pagewatch);
  const baseRate = baseline.result.rendered / baseline.result.seconds;
  const rate = measured.result.done / measured.result.seconds;
  publish(
    'browser-checks',
    `## 4. Browser checks

${CHECKS} loads of a JavaScript-rendered page (the price is set by a script 100 ms after load), ${CONCURRENCY} at once, Chromium at
${loadConfig({}).chromiumPath}; memory is the peak of the summed resident sizes (shared pages counted per process) of the benchmark process and its Chromium processes (sampled every
250 ms; the fixture site's process excluded). pagewatch: the engine with browser monitors on PGlite (filtering proxy, fresh context,
settle (src/fetch/loader/page-settle.ts), extraction, commit). Baseline: playwright-core with its default launch flags, a fresh context per load, \`goto\` then wait for the price.
pagewatch launches Chromium without the omnibox popup renderer each context has by default, a spare renderer or a GPU process
(\`src/fetch/browser/chromium.ts\`); plain playwright-core with those flags is faster and smaller still (docs/decisions/0033-browser-checks-one-renderer-per-load-no-gpu.md).

${table(
  ['what', 'loads/s', 'ratio', 'peak RSS', 'RSS ratio', 'correct price'],
  [
    [
      'plain playwright-core (baseline)',
      fmt(baseRate, 2),
      '1.00×',
      mib(baseline.peakRss),
      '1.00×',
      `${baseline.result.rendered}/${CHECKS}`,
    ],
    [
      'pagewatch browser checks',
      fmt(rate, 2),
      ratio(rate, baseRate),
      mib(measured.peakRss),
      ratio(measured.peakRss, baseline.peakRss),
      `${measured.result.priced}/${CHECKS}`,
    ],
  ],
)}

Re-run: \`node bin/run-ts.js bench/browser-checks.bench.ts\` (BENCH_BROWSER_CHECKS, BENCH_BROWSER_CONCURRENCY, BENCH_BROWSER_LIMIT_S).`,
  );
} finally {
  await server.close();
}
