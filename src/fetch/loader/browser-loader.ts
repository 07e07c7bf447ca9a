import type { Browser, BrowserContext, Page } from 'playwright-core';
import { BrowserUnavailable, LoadDeferred } from './load-errors.ts';
import type { QueueObserver } from '../../domain/fair-queue.ts';
import { RenderSlots } from './render-slots.ts';
import type { CheckIssue } from '../../domain/issues.ts';
import { vetUrl, type GuardPolicy } from '../ssrf/guard.ts';
import { ChromiumSource } from '../browser/chromium.ts';
import { defaultChromiumPath } from '../../config.ts';
import { startFilteringProxy, type FilteringProxy } from '../browser/filtering-proxy.ts';
import { loadPage } from './browser-page.ts';
import { loadIssue, type LoadRequest, type LoadResult, type PageLoader } from './types.ts';
import type { OutboundProxy } from '../../domain/network/outbound-proxies.ts';

// The `browser` load mode: pages rendered by Chromium, whose every connection
// goes through the filtering proxy (DESIGN §5). One browser is shared; each
// load gets a fresh context (no cookies, storage or cache carry over) that is
// closed afterwards.

export interface BrowserLoaderOptions {
  /** the SSRF policy the proxy enforces (PAGEWATCH_ALLOW_PORTS, PAGEWATCH_ALLOW_PRIVATE_NETWORKS) */
  policy: GuardPolicy;
  /** local Chromium executable; default defaultChromiumPath() (config.ts): the headless shell when installed, else `/usr/bin/chromium` */
  chromiumPath?: string;
  /**
   * CDP websocket of a remote Chromium (PAGEWATCH_BROWSER_WS); default unset,
   * which launches `chromiumPath`. A remote browser is still confined to the
   * proxy: each context is created with the proxy and per-load credentials, so
   * the remote browser must be able to reach the proxy — set `proxyHost` to an
   * address it can connect to and `proxyPublicHost` to the name it uses. The
   * remote browser's own launch flags (WebRTC, QUIC, host resolver, the
   * processes it keeps) are the operator's to set like `chromiumArgs()` does.
   */
  browserWsEndpoint?: string;
  /** address the proxy listens on; default `127.0.0.1` */
  proxyHost?: string;
  /** host the browser uses to reach the proxy; default `proxyHost` */
  proxyPublicHost?: string;
  /** loads at once (interactive ones at most all but one); others wait their turn; default 2 */
  maxPages?: number;
  /** interactive loads (previews) one account may have waiting or running; more fail with renderer_busy; default 2 */
  maxInteractivePerAccount?: number;
  /** interactive loads waiting overall; more fail with renderer_busy; default 4 */
  maxInteractiveWaiting?: number;
  /** check loads waiting overall; more fail with renderer_busy (the check is deferred); default 4 */
  maxChecksWaiting?: number;
  /** where the queue's depth and each load's wait are reported */
  observer?: QueueObserver;
  /** the whole load, navigation to reading the DOM; default 60000 ms */
  timeoutMs?: number;
  /**
   * longest wait, from the document's arrival, for the load event and then
   * for the page to settle (nothing in flight, no timer of up to 1 s pending,
   * network and DOM still for `settleQuietMs`); default 5000 ms
   */
  settleMs?: number;
  /** how long a page must be still to count as settled; default 100 ms */
  settleQuietMs?: number;
  /** largest rendered HTML accepted, in bytes (UTF-8); default 5 MiB */
  maxBodyBytes?: number;
  /** redirects of the main document before the load counts as failed; default 5 */
  maxRedirects?: number;
  /** the operator's proxies a load may name (LoadRequest.proxy): the filtering proxy connects through it */
  proxies?: OutboundProxy[];
  /** a launched Chromium without a load for this long is stopped, started again by the next; default 60000 ms */
  idleStopMs?: number;
}

// What a page may not download: nothing a watcher reads comes from them, and
// they are most of a page's weight.
const SKIPPED_RESOURCES = new Set(['image', 'media', 'font']);

const WATCHDOG_GRACE_MS = 5_000;

/** The turn of a load that names none. */
const UNNAMED_CHECK = { account: '', lane: 'check' } as const;

/** the page-level refusals, on top of the proxy's */
async function confine(context: BrowserContext): Promise<void> {
  // A WebSocket handshake is never routed by context.route, and a wss://
  // tunnel looks like https to the proxy, so sockets are refused here.
  await context.routeWebSocket(/.*/, (ws) => ws.close({ code: 1008, reason: 'WebSockets are refused' }));
  await context.route('**/*', (route) => {
    const req = route.request();
    const refused = !/^https?:/i.test(req.url()) || SKIPPED_RESOURCES.has(req.resourceType());
    return (refused ? route.abort('blockedbyclient') : route.continue()).catch(() => undefined);
  });
}

/**
 * What a page (or a step) may open besides itself is dismissed: popups and
 * new tabs are closed, dialogs dismissed, file choosers left unanswered
 * (listening keeps the native one from opening). Downloads are refused by the
 * context (acceptDownloads: false) and permission prompts denied (the
 * context is created granting none).
 */
function dismissInterruptions(context: BrowserContext, page: Page): void {
  context.on('page', (other) => {
    if (other !== page) void other.close().catch(() => undefined);
  });
  page.on('dialog', (dialog) => void dialog.dismiss().catch(() => undefined));
  page.on('filechooser', () => undefined);
}

export function createBrowserLoader(options: BrowserLoaderOptions): PageLoader {
  const maxPages = options.maxPages ?? 2;
  const timeoutMs = options.timeoutMs ?? 60_000;
  const limits = {
    settleMs: options.settleMs ?? 5_000,
    settleQuietMs: options.settleQuietMs ?? 100,
    maxBodyBytes: options.maxBodyBytes ?? 5 * 1024 * 1024,
    maxRedirects: options.maxRedirects ?? 5,
  };
  const slots = new RenderSlots({
    slots: maxPages,
    maxPerAccount: options.maxInteractivePerAccount ?? 2,
    maxWaiting: options.maxInteractiveWaiting ?? 4,
    maxWaitingChecks: options.maxChecksWaiting ?? 4,
    // A page frees at the latest when a running load hits its timeout.
    retryAfterSeconds: Math.ceil(timeoutMs / 1000),
    observer: options.observer,
  });
  const proxyHost = options.proxyHost ?? '127.0.0.1';
  const proxyPublicHost = options.proxyPublicHost ?? proxyHost;
  let closed = false;
  // Chromium holds hundreds of MiB while idle, so it runs only while browser loads
  // exist: the last load to end arms a timer that stops it. A remote browser is
  // the operator's and stays connected.
  const idleStopMs = options.idleStopMs ?? 60_000;
  let loading = 0;
  let idleTimer: NodeJS.Timeout | undefined;
  let started: Promise<{ proxy: FilteringProxy; chromium: ChromiumSource; proxyServer: string }> | null = null;

  // The proxy's port is ephemeral, so Chromium's flags wait for the proxy.
  function start() {
    if (closed) return Promise.reject(new Error('the loader is closed'));
    started ??= startFilteringProxy({ policy: options.policy, host: proxyHost }).then((proxy) => {
      const proxyServer = `http://${proxyPublicHost.includes(':') ? `[${proxyPublicHost}]` : proxyPublicHost}:${proxy.port}`;
      const chromium = new ChromiumSource({
        chromiumPath: options.chromiumPath ?? defaultChromiumPath(),
        browserWsEndpoint: options.browserWsEndpoint,
        proxyServer,
        maxPages,
        startTimeoutMs: timeoutMs,
      });
      return { proxy, chromium, proxyServer };
    });
    // A proxy that failed to start is tried again by the next load.
    started.catch(() => (started = null));
    return started;
  }

  async function run(request: LoadRequest): Promise<LoadResult> {
    const deadline = Date.now() + timeoutMs;
    // Schemes such as file: or chrome: would never reach the proxy, so the
    // URL itself is vetted before Chromium sees it.
    const vetted = vetUrl(request.url, options.policy);
    if (!vetted.ok) return failure(request.url, 'address_refused', `the address is not allowed: ${vetted.reason}`);
    if (request.signal?.aborted) return failure(request.url, 'fetch_failed', 'the load was cancelled');
    const upstream = request.proxy === undefined ? undefined : options.proxies?.find((p) => p.name === request.proxy);
    if (request.proxy !== undefined && upstream === undefined) {
      return failure(request.url, 'fetch_failed', `no proxy named ${request.proxy} is configured`);
    }

    let parts: Awaited<ReturnType<typeof start>>;
    let browser: Browser;
    try {
      parts = await start();
      browser = await parts.chromium.get();
    } catch (err) {
      // Not a problem of the page: the caller answers 503 and tries later.
      throw new BrowserUnavailable(`the browser could not be started: ${(err as Error).message.split('\n')[0]}`, 60);
    }
    const { proxy, proxyServer } = parts;
    const session = proxy.openSession(upstream);
    let context: BrowserContext | null = null;
    // Closing a context while Playwright is still setting it up can leave the
    // setup hanging, so an abort closes it only once the page exists; before
    // that the flag is checked when setup is done.
    let navigating = false;
    const abort = (): void => {
      if (navigating) void context?.close().catch(() => undefined);
    };
    const cancelled = (): LoadResult => failure(request.url, 'fetch_failed', 'the load was cancelled');
    request.signal?.addEventListener('abort', abort, { once: true });
    const newContext = (on: Browser) =>
      on.newContext({
        // '<-loopback>' stops Chromium from sending loopback addresses around the proxy.
        proxy: { server: proxyServer, bypass: '<-loopback>', username: session.username, password: session.password },
        serviceWorkers: 'block',
        acceptDownloads: false,
        // Granting none denies every permission outright (CDP Browser.grantPermissions), rather than leaving each
        // prompt's answer to the browser build: the headless shell leaves a notification request at "default".
        permissions: [],
      });
    try {
      try {
        context = await newContext(browser);
      } catch (err) {
        // A Chromium that died since the last load (before its exit was noticed) is replaced once, not blamed on the page.
        if (browser.isConnected()) throw err;
        await parts.chromium.discard();
        browser = await parts.chromium.get();
        context = await newContext(browser);
      }
      await confine(context);
      const page = await context.newPage();
      dismissInterruptions(context, page);
      if (request.signal?.aborted) return cancelled();
      navigating = true;
      const steps = request.steps?.length ? { list: request.steps, site: vetted.url, secrets: request.secrets ?? new Map() } : undefined;
      const result = await loadPage(page, vetted.url.href, { deadline, ...limits }, session.events, steps);
      return request.signal?.aborted ? cancelled() : result;
    } catch (err) {
      // Only a context that died under us (crash, abort, shutdown) gets here.
      if (request.signal?.aborted) return cancelled();
      return failure(request.url, 'fetch_failed', `the browser failed: ${(err as Error).message.split('\n')[0]}`);
    } finally {
      request.signal?.removeEventListener('abort', abort);
      session.close();
      await context?.close().catch(() => undefined);
    }
  }

  // Playwright has no deadline of its own on every call; a browser that stops
  // answering would otherwise hold a pool slot forever. Past the load's
  // deadline plus a grace period the load reports a timeout and the browser is
  // replaced, which rejects whatever was still waiting on it.
  async function runWatched(request: LoadRequest): Promise<LoadResult> {
    let timer: NodeJS.Timeout | undefined;
    const hung = new Promise<'hung'>((resolve) => {
      timer = setTimeout(() => resolve('hung'), timeoutMs + WATCHDOG_GRACE_MS);
    });
    const running = run(request);
    try {
      const outcome = await Promise.race([running, hung]);
      if (outcome !== 'hung') return outcome;
      const current = await started?.catch(() => null);
      await current?.chromium.discard();
      // Wait for the stuck load to let go of its slot: discarding the browser settles it.
      await running.catch(() => undefined);
      return failure(request.url, 'timeout', 'the browser did not answer in time');
    } finally {
      clearTimeout(timer);
    }
  }

  function stopWhenIdle(): void {
    idleTimer = setTimeout(() => {
      if (loading > 0 || closed) return;
      void started?.then((current) => current.chromium.discard()).catch(() => undefined);
    }, idleStopMs);
    // An idle browser's timer must not keep the process alive.
    idleTimer.unref();
  }

  return {
    async load(request) {
      if (closed) throw new BrowserUnavailable('the browser loader is closed', 60);
      if (request.signal?.aborted) return failure(request.url, 'fetch_failed', 'the load was cancelled');
      let release;
      try {
        release = await slots.acquire(request.turn ?? UNNAMED_CHECK, request.signal);
      } catch (err) {
        if (err instanceof LoadDeferred) throw err;
        // Its signal aborted while it waited.
        return failure(request.url, 'fetch_failed', 'the load was cancelled');
      }
      loading++;
      clearTimeout(idleTimer);
      try {
        return await runWatched(request);
      } finally {
        release();
        if (--loading === 0 && !options.browserWsEndpoint) stopWhenIdle();
      }
    },
    async close() {
      closed = true;
      clearTimeout(idleTimer);
      slots.refuseWaiting(new BrowserUnavailable('the browser loader is closed', 60));
      // Closing the browser closes every context (a remote one: every context
      // this loader created), failing loads still in progress; contexts are
      // not closed one by one because closing one mid-setup can hang.
      const current = await started?.catch(() => null);
      if (!current) return;
      await current.chromium.close();
      await current.proxy.close();
    },
  };
}

function failure(url: string, code: CheckIssue['code'], message: string): LoadResult {
  return { finalUrl: url, status: null, html: null, issues: [loadIssue(code, message)] };
}
