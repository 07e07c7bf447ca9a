import type { Config } from '../config.ts';
import { guardPolicy, type GuardPolicy } from './ssrf/guard.ts';
import { createHtmlLoader } from './loader/html-loader.ts';
import { createBrowserLoader } from './loader/browser-loader.ts';
import type { LoadMode } from '../domain/load-mode.ts';
import type { PageLoader } from './loader/types.ts';
import { ExtractionPool } from '../extraction/extraction-pool.ts';

/** The two page loaders behind one SSRF policy, and the threads that read the pages they load, built once at start. */
export interface Loaders {
  policy: GuardPolicy;
  byMode: Record<LoadMode, PageLoader>;
  extraction: ExtractionPool;
  close(): Promise<void>;
}

export interface LoaderSettings {
  /** browser loads at once before renderer_busy; default 2 */
  maxBrowserPages?: number;
  /** overall deadline of one load; default 60000 ms */
  timeoutMs?: number;
  /** time budget of parsing and extracting one page; default 10000 ms */
  extractionBudgetMs?: number;
}

export function createLoaders(config: Config, settings: LoaderSettings = {}): Loaders {
  const policy = guardPolicy({ allowPorts: config.allowPorts, trustedCidrs: config.allowPrivateNetworks });
  const html = createHtmlLoader({ policy, timeoutMs: settings.timeoutMs });
  const browser = createBrowserLoader({
    policy,
    chromiumPath: config.chromiumPath,
    browserWsEndpoint: config.browserWs ?? undefined,
    maxPages: settings.maxBrowserPages,
    timeoutMs: settings.timeoutMs,
  });
  const extraction = new ExtractionPool({ size: config.extractWorkers, budgetMs: settings.extractionBudgetMs });
  return {
    policy,
    byMode: { html, browser },
    extraction,
    async close() {
      await Promise.all([html.close(), browser.close(), extraction.close()]);
    },
  };
}
