import type { Browser } from 'playwright-core';

// One Chromium for the whole loader: launched (or connected to) on first use,
// reused by every load, and replaced when it crashed or the connection died.
// playwright-core itself (~90 MiB resident once loaded) is imported then too,
// so an install without browser monitors never loads it.

export interface ChromiumSourceOptions {
  /** executable of a local Chromium */
  chromiumPath: string;
  /** CDP websocket of a remote Chromium; when set nothing is launched */
  browserWsEndpoint?: string;
  /** the filtering proxy as this browser reaches it, e.g. http://127.0.0.1:41234 */
  proxyServer: string;
  /** pages loaded at once (the loader's maxPages): a launched browser keeps no more renderers than that */
  maxPages: number;
  /** how long launching or connecting may take */
  startTimeoutMs: number;
}

/**
 * Features Playwright's own launch turns off (playwright-core 1.65,
 * chromiumSwitches.ts). Chromium reads only the last --disable-features, so
 * ours must repeat them; a test compares them with what Playwright launches.
 */
export const PLAYWRIGHT_DISABLED_FEATURES = [
  'AvoidUnnecessaryBeforeUnloadCheckSync',
  'DestroyProfileOnBrowserClose',
  'HttpsUpgrades',
  'HttpsFirstBalancedModeAutoEnable',
  'LensOverlay',
  'MediaRouter',
  'PaintHolding',
  'ThirdPartyStoragePartitioning',
  'AvoidCorsURLLoaderRestartOnRedirect',
  'TcpPortRandomizationWin',
  'OptimizationHints',
  'NetworkTimeServiceQuerying',
  'AimEnabled',
  'PreconnectToSearch',
  'msForceBrowserSignIn',
  'msEdgeUpdateLaunchServicesPreferredVersion',
];

// Headless Chromium opens a window per context, and gives each its omnibox
// popups, rendered by a WebUI renderer of their own (started anew with every
// load, docs/decisions/0033-browser-checks-one-renderer-per-load-no-gpu.md). No one ever types into that omnibox.
const DISABLED_FEATURES = [...PLAYWRIGHT_DISABLED_FEATURES, 'WebUIOmniboxPopup', 'WebUIOmniboxAimPopup'];

/**
 * Flags of a locally launched Chromium. The proxy is also set per context (with
 * per-load credentials); the global one catches the browser's own traffic, and
 * without credentials the proxy refuses it.
 */
export function chromiumArgs(proxyServer: string, maxPages: number): string[] {
  const proxyHost = new URL(proxyServer).hostname;
  return [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    // Compositing is in software anyway (no GPU): in the browser process it
    // needs no GPU process of its own (docs/decisions/0033-browser-checks-one-renderer-per-load-no-gpu.md).
    '--in-process-gpu',
    // Each load has a context of its own, and contexts never share a renderer,
    // so this does not put loads together: it stops Chromium from keeping a
    // spare renderer started ahead of the next page on top of one per load.
    `--renderer-process-limit=${maxPages}`,
    // QUIC is UDP and would not go through an HTTP proxy
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    `--disable-features=${DISABLED_FEATURES.join(',')}`,
    '--disable-dev-shm-usage',
    `--proxy-server=${proxyServer}`,
    // Chromium sends loopback and link-local addresses around a proxy unless told not to
    '--proxy-bypass-list=<-loopback>',
    // Chromium never needs DNS itself: proxied requests carry host names to the
    // proxy, which resolves them once and vets the address; this closes
    // prefetch and any direct path, leaving only the proxy's own address.
    `--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE ${proxyHost}`,
    // WebRTC may only use UDP through the proxy, which offers none
    '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
    '--webrtc-ip-handling-policy=disable_non_proxied_udp',
  ];
}

export class ChromiumSource {
  readonly #options: ChromiumSourceOptions;
  #browser: Promise<Browser> | null = null;
  #closed = false;

  constructor(options: ChromiumSourceOptions) {
    this.#options = options;
  }

  /** the shared browser, started on first call and again after a crash */
  get(): Promise<Browser> {
    if (this.#closed) return Promise.reject(new Error('the browser source is closed'));
    if (!this.#browser) {
      const started = this.#start();
      this.#browser = started;
      started.then(
        (browser) => browser.on('disconnected', () => this.#forget(started)),
        () => this.#forget(started),
      );
    }
    return this.#browser;
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.discard();
  }

  /** closes the current browser (e.g. one that stopped answering); the next get() starts another */
  async discard(): Promise<void> {
    const current = this.#browser;
    this.#browser = null;
    const browser = await current?.catch(() => null);
    await browser?.close().catch(() => undefined);
  }

  #forget(started: Promise<Browser>): void {
    if (this.#browser === started) this.#browser = null;
  }

  async #start(): Promise<Browser> {
    const { browserWsEndpoint, chromiumPath, proxyServer, maxPages, startTimeoutMs } = this.#options;
    const { chromium } = await import('playwright-core');
    if (browserWsEndpoint) return chromium.connectOverCDP(browserWsEndpoint, { timeout: startTimeoutMs });
    return chromium.launch({
      executablePath: chromiumPath,
      headless: true,
      chromiumSandbox: false,
      args: chromiumArgs(proxyServer, maxPages),
      timeout: startTimeoutMs,
      // pagewatch's own drain handles these signals; Playwright's handlers would end the process first (exit 130).
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
    });
  }
}
