import { loadConfig } from '../src/config.ts';
import type { Target } from '../src/domain/targets.ts';
import { engineBrowserChecks, plainPlaywrightLoads, withPeakRss } from './lib/browser-runs.ts';
import { startPageServer } from './lib/page-server.ts';
import { fmt, mib, publish, ratio, table } from './lib/report.ts';

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

const plainPlaywright = () =>
  plainPlaywrightLoads(urls, CONCURRENCY, LIMIT_MS, async (page) => {
    await page.waitForFunction(() => document.getElementById('price')?.textContent?.includes('$'), undefined, { timeout: 10_000 });
    return (await page.content()).includes('$249.00');
  });

const pagewatch = () =>
  engineBrowserChecks({ urls, targets: TARGETS, concurrency: CONCURRENCY, limitMs: LIMIT_MS, priceDisplay: '249.00 USD' });

try {
  const baseline = await withPeakRss(server.pid, plainPlaywright);
  const measured = await withPeakRss(server.pid, pagewatch);
  const baseRate = baseline.result.right / baseline.result.seconds;
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
    ['plain playwright-core (baseline)', fmt(baseRate, 2), '1.00×', mib(baseline.peakRss), '1.00×', `${baseline.result.right}/${CHECKS}`],
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
