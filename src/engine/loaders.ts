import type { Config } from '../config.ts';
import { guardPolicy, type GuardPolicy } from './ssrf/guard.ts';
import { createHtmlLoader } from './loader/html-loader.ts';
import { createBrowserLoader } from './loader/browser-loader.ts';
import type { LoadMode, PageLoader } from './loader/types.ts';

/** The two page loaders behind one SSRF policy, built once at start. */
export interface Loaders {
  policy: GuardPolicy;
  byMode: Record<LoadMode, PageLoader>;
  close(): Promise<void>;
}

export interface LoaderSettings {
  /** browser loads at once before renderer_busy; default 2 */
  maxBrowserPages?: number;
  /** overall deadline of one load; default 60000 ms */
  timeoutMs?: number;
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
  return {
    policy,
    byMode: { html, browser },
    async close() {
      await Promise.all([html.close(), browser.close()]);
    },
  };
}
