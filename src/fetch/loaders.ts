import type { Config } from '../config.ts';
import { guardPolicy, type GuardPolicy } from './ssrf/guard.ts';
import { createHtmlLoader } from './loader/html-loader.ts';
import { createBrowserLoader } from './loader/browser-loader.ts';
import type { LoadMode } from '../domain/load-mode.ts';
import type { PageLoader } from './loader/types.ts';
import { ExtractionPool } from '../extraction/extraction-pool.ts';
import { queueObserver, type Metrics } from '../process-metrics.ts';

/** The two page loaders behind one SSRF policy, and the threads that read the pages they load, built once at start. */
export interface Loaders {
  policy: GuardPolicy;
  /** the names of the operator's proxies a monitor or preview may choose */
  proxyNames: ReadonlySet<string>;
  byMode: Record<LoadMode, PageLoader>;
  extraction: ExtractionPool;
  close(): Promise<void>;
}

export interface LoaderSettings {
  /** browser loads at once; default 2 */
  maxBrowserPages?: number;
  /** browser previews one account may have waiting or rendering before renderer_busy; default 2 */
  browserPreviewsPerAccount?: number;
  /** browser previews waiting overall before renderer_busy; default 4 */
  browserPreviewsWaiting?: number;
  /** browser checks waiting overall before they are deferred; default 4 */
  browserChecksWaiting?: number;
  /** overall deadline of one load; default 60000 ms */
  timeoutMs?: number;
  /** longest wait of a browser load for the load event and the page to settle; default 5000 ms */
  browserSettleMs?: number;
  /** time budget of parsing and extracting one page; default 10000 ms */
  extractionBudgetMs?: number;
  /** interactive extractions one account may have waiting or running; default 4 */
  extractionsPerAccount?: number;
  /** interactive extractions waiting overall; default 32 */
  extractionsWaiting?: number;
  /** the extraction threads' entry module (tests give one whose jobs take a set time) */
  extractionWorkerUrl?: URL;
}

/** `metrics`, when given, receives the depth of the work queues and each job's wait. */
export function createLoaders(config: Config, settings: LoaderSettings = {}, metrics?: Metrics): Loaders {
  const policy = guardPolicy({ allowPorts: config.allowPorts, trustedCidrs: config.allowPrivateNetworks });
  const html = createHtmlLoader({ policy, timeoutMs: settings.timeoutMs, proxies: config.proxies });
  const browser = createBrowserLoader({
    policy,
    chromiumPath: config.chromiumPath,
    browserWsEndpoint: config.browserWs ?? undefined,
    maxPages: settings.maxBrowserPages,
    maxInteractivePerAccount: settings.browserPreviewsPerAccount,
    maxInteractiveWaiting: settings.browserPreviewsWaiting,
    maxChecksWaiting: settings.browserChecksWaiting,
    timeoutMs: settings.timeoutMs,
    settleMs: settings.browserSettleMs,
    idleStopMs: config.idleStopSeconds * 1000,
    observer: metrics && queueObserver(metrics, 'browser'),
    proxies: config.proxies,
  });
  const extraction = new ExtractionPool({
    size: config.extractWorkers,
    budgetMs: settings.extractionBudgetMs,
    maxPerAccount: settings.extractionsPerAccount,
    maxWaiting: settings.extractionsWaiting,
    workerUrl: settings.extractionWorkerUrl,
    idleMs: config.idleStopSeconds * 1000,
    observer: metrics && queueObserver(metrics, 'extraction'),
  });
  return {
    policy,
    proxyNames: new Set(config.proxies.map((p) => p.name)),
    byMode: { html, browser },
    extraction,
    async close() {
      await Promise.all([html.close(), browser.close(), extraction.close()]);
    },
  };
}
