import { performance } from 'node:perf_hooks';
import { chromium, type Page } from 'playwright-core';
import { loadConfig } from '../../src/config.ts';
import type { Step } from '../../src/domain/steps.ts';
import type { Target } from '../../src/domain/targets.ts';
import { benchEngine, benchLoaders } from './engine.ts';
import { pool, sleep, treeRssBytes, waitFor } from './measure.ts';
import { createAccount, insertMonitors } from './seed.ts';
import { openBenchStore } from './stores.ts';

// The two sides of the browser benchmarks (sections 4 and 4b): plain
// playwright-core loads against the engine's browser checks, on the same
// Chromium at the same concurrency, with the peak memory of each.

/** Peak resident memory of this process and its Chromium while `work` runs (the page server `excludedPid` left out). */
export async function withPeakRss<T>(excludedPid: number, work: () => Promise<T>): Promise<{ result: T; peakRss: number }> {
  let peak = 0;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      peak = Math.max(peak, treeRssBytes(process.pid) - treeRssBytes(excludedPid));
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

/**
 * Loads every URL in plain playwright-core, a fresh context per load like the
 * loader, then `read` on the page; counts the loads `read` found right.
 */
export async function plainPlaywrightLoads(
  urls: string[],
  concurrency: number,
  limitMs: number,
  read: (page: Page) => Promise<boolean>,
): Promise<{ seconds: number; right: number }> {
  const browser = await chromium.launch({ executablePath: loadConfig({}).chromiumPath, headless: true });
  let right = 0;
  try {
    const started = performance.now();
    await pool(urls.length, concurrency, async (i) => {
      const context = await browser.newContext();
      try {
        const page = await context.newPage();
        await page.goto(urls[i]!, { waitUntil: 'load', timeout: limitMs });
        if (await read(page)) right++;
      } finally {
        await context.close();
      }
    });
    return { seconds: (performance.now() - started) / 1000, right };
  } finally {
    await browser.close();
  }
}

export interface EngineBrowserRun {
  urls: string[];
  targets: Target[];
  steps?: Step[];
  concurrency: number;
  limitMs: number;
  /** the baseline display of the `price` target a right capture stores */
  priceDisplay: string;
}

/** The engine on PGlite checks one browser monitor per URL, all due at once; counts the right prices. */
export async function engineBrowserChecks(run: EngineBrowserRun): Promise<{ seconds: number; done: number; priced: number }> {
  const store = await openBenchStore('pglite');
  const loaders = benchLoaders({ maxBrowserPages: run.concurrency });
  try {
    const accountId = await createAccount(store.db);
    const due = new Date(Date.now() - 1000);
    await insertMonitors(store.db, {
      accountId,
      loadMode: 'browser',
      intervalMinutes: 60,
      targets: run.targets,
      monitors: run.urls.map((url) => ({ url, nextCheckAt: due })),
    });
    if (run.steps) {
      await store.db.query('UPDATE monitors SET steps = $1::jsonb WHERE account_id = $2', [JSON.stringify(run.steps), accountId]);
    }
    const engine = benchEngine(store.db, loaders, run.concurrency);
    const started = performance.now();
    engine.start();
    await waitFor(async () => (await engine.recorded()) >= run.urls.length, run.limitMs, 20);
    const done = await engine.recorded();
    const seconds = (performance.now() - started) / 1000;
    await engine.stop();
    const priced = await store.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM baselines WHERE target_id = 'price' AND display = $1",
      [run.priceDisplay],
    );
    return { seconds, done, priced: priced[0]!.n };
  } finally {
    await loaders.close();
    await store.close();
  }
}
