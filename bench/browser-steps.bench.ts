import { loadConfig } from '../src/config.ts';
import type { Step } from '../src/domain/steps.ts';
import type { Target } from '../src/domain/targets.ts';
import { engineBrowserChecks, plainPlaywrightLoads, withPeakRss } from './lib/browser-runs.ts';
import { startPageServer } from './lib/page-server.ts';
import { fmt, mib, publish, ratio, table } from './lib/report.ts';

// Issue #42: browser checks with three steps before the capture
// (test/fixtures/site/shop/stepped-price.html: accept cookies, choose the
// large size, reveal the price), against plain playwright-core doing the same
// three actions on the same Chromium at the same concurrency, a fresh context
// per load like the loader.
//
//   BENCH_STEPS_CHECKS       checks, and baseline loads (default 30)
//   BENCH_STEPS_CONCURRENCY  loads at once (default 2, the loader's page limit)
//   BENCH_STEPS_LIMIT_S      longest run of each side (default 180)

const CHECKS = Number(process.env.BENCH_STEPS_CHECKS ?? 30);
const CONCURRENCY = Number(process.env.BENCH_STEPS_CONCURRENCY ?? 2);
const LIMIT_MS = Number(process.env.BENCH_STEPS_LIMIT_S ?? 180) * 1000;
const TARGETS: Target[] = [
  { id: 'price', kind: 'price', selection: { scope: 'selector', selector: '#price' }, currency: 'USD', rule: 'changed' },
];
const STEPS: Step[] = [
  { action: 'click', selector: '#accept' },
  { action: 'select', selector: '#size', value: 'l' },
  { action: 'click', selector: '#reveal' },
];

const server = await startPageServer();
const urls = Array.from({ length: CHECKS }, (_, i) => `${server.bases[0]}/stepped.html?n=${i}`);

const plainPlaywright = () =>
  plainPlaywrightLoads(urls, CONCURRENCY, LIMIT_MS, async (page) => {
    await page.click('#accept');
    await page.selectOption('#size', 'l');
    await page.click('#reveal');
    await page.locator('#price').filter({ hasText: '$' }).waitFor({ timeout: 10_000 });
    return (await page.content()).includes('$349.00');
  });

const pagewatch = () =>
  engineBrowserChecks({ urls, targets: TARGETS, steps: STEPS, concurrency: CONCURRENCY, limitMs: LIMIT_MS, priceDisplay: '349.00 USD' });

try {
  const baseline = await withPeakRss(server.pid, plainPlaywright);
  const measured = await withPeakRss(server.pid, pagewatch);
  const baseRate = baseline.result.right / baseline.result.seconds;
  const rate = measured.result.done / measured.result.seconds;
  publish(
    'browser-steps',
    `## 4b. Browser checks with steps

${CHECKS} loads of a page whose price shows only after three actions (accept cookies, choose a size, reveal the price:
test/fixtures/site/shop/stepped-price.html), ${CONCURRENCY} at once, Chromium at ${loadConfig({}).chromiumPath}; memory as in section 4.
pagewatch: the engine with browser monitors on PGlite whose \`steps\` are \`click\`, \`select\`, \`click\` (filtering proxy, fresh
context, settle after the load and after each step, extraction, commit). Baseline: playwright-core with its default launch flags,
a fresh context per load, \`goto\`, the same three actions, then wait for the price. pagewatch also waits for the page to be
still after every step (src/fetch/loader/page-steps.ts); how much of the difference that is was not measured apart.

${table(
  ['what', 'loads/s', 'ratio', 'peak RSS', 'RSS ratio', 'correct price'],
  [
    ['plain playwright-core (baseline)', fmt(baseRate, 2), '1.00×', mib(baseline.peakRss), '1.00×', `${baseline.result.right}/${CHECKS}`],
    [
      'pagewatch browser checks with 3 steps',
      fmt(rate, 2),
      ratio(rate, baseRate),
      mib(measured.peakRss),
      ratio(measured.peakRss, baseline.peakRss),
      `${measured.result.priced}/${CHECKS}`,
    ],
  ],
)}

Re-run: \`node bin/run-ts.js bench/browser-steps.bench.ts\` (BENCH_STEPS_CHECKS, BENCH_STEPS_CONCURRENCY, BENCH_STEPS_LIMIT_S).`,
  );
} finally {
  await server.close();
}
