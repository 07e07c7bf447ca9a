import { setTimeout as sleep } from 'node:timers/promises';
import type { Page, Request } from 'playwright-core';
import { withDeadline } from './deadline.ts';

// When a loaded page is done: after the load event, once nothing is in flight,
// no short timer is pending and neither the network nor the DOM has changed
// for a quiet window — or at the settle cap, for pages that never stop.
// Pending timers are what let the window be short: a script that writes a
// value after a delay is waited for however long the delay, up to the cap.
// The page counts its own fetch and XHR requests too: a step's click that
// fetches is busy at once in the page, while the browser's report of the
// request can reach us after a loaded machine has already judged it quiet.

export interface SettleRules {
  /** how long network and DOM must both have been still */
  quietMs: number;
  /** absolute time (ms since epoch) by which waiting stops, settled or not */
  capAt: number;
}

/** Timers set for at most this long hold the settle; longer ones (rotations, slow polls) do not. */
const TIMER_HORIZON_MS = 1000;

/** Property of the page's window holding its activity; named so no page script meets it by chance. */
const PROBE_KEY = '__pagewatchSettle';

interface PageActivity {
  /** performance.now() of the latest DOM mutation, timer run or request start or end */
  lastChange: number;
  pendingTimers: Set<number>;
  /** fetch and XHR requests the page's scripts started and not yet answered */
  pendingRequests: number;
}

interface PageState {
  sinceChangeMs: number;
  pendingTimers: number;
  pendingRequests: number;
  complete: boolean;
}

// Runs in each new document of the page, before its scripts. Plain JavaScript
// in a string: a function would be serialized as compiled, and the TypeScript
// loader adds helper calls (__name) that do not exist in the page.
const WATCH_ACTIVITY = `(() => {
  if (window !== window.top) return; // only the main frame's document is read
  const activity = { lastChange: performance.now(), pendingTimers: new Set(), pendingRequests: 0 };
  Object.defineProperty(window, ${JSON.stringify(PROBE_KEY)}, { value: activity });
  const touch = () => { activity.lastChange = performance.now(); };
  const requestStarted = () => { activity.pendingRequests++; touch(); };
  const requestEnded = () => { activity.pendingRequests--; touch(); };
  const pageFetch = window.fetch;
  window.fetch = function (...args) {
    requestStarted();
    let answer;
    try {
      answer = Reflect.apply(pageFetch, this, args);
    } catch (error) {
      requestEnded();
      throw error;
    }
    answer.then(requestEnded, requestEnded);
    return answer;
  };
  const send = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.send = function (...args) {
    requestStarted();
    this.addEventListener('loadend', requestEnded, { once: true });
    try {
      return Reflect.apply(send, this, args);
    } catch (error) {
      this.removeEventListener('loadend', requestEnded);
      requestEnded();
      throw error;
    }
  };
  new MutationObserver(touch).observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  const setTimer = window.setTimeout.bind(window);
  const clearTimer = window.clearTimeout.bind(window);
  // A handler that re-arms itself is a poll (for a script, an element, a
  // change) that would hold every load until the cap: only its first run is waited for.
  const ran = new WeakSet();
  window.setTimeout = function (handler, delay, ...args) {
    const waited = typeof handler === 'function' && !ran.has(handler) && Number(delay ?? 0) <= ${TIMER_HORIZON_MS};
    if (!waited) return setTimer(handler, delay, ...args);
    const id = setTimer((...callArgs) => {
      activity.pendingTimers.delete(id);
      ran.add(handler);
      // A timer that ran may have started work (a fetch, a message) not yet visible.
      touch();
      return Reflect.apply(handler, window, callArgs);
    }, delay, ...args);
    activity.pendingTimers.add(id);
    return id;
  };
  window.clearTimeout = function (id) {
    activity.pendingTimers.delete(id);
    clearTimer(id);
  };
})();`;

function readActivity(key: string): PageState | null {
  const activity = (window as unknown as Record<string, PageActivity | undefined>)[key];
  if (!activity) return null;
  return {
    sinceChangeMs: performance.now() - activity.lastChange,
    pendingTimers: activity.pendingTimers.size,
    pendingRequests: activity.pendingRequests,
    complete: document.readyState === 'complete',
  };
}

export interface SettleWatch {
  /** waits until the page is settled by the rules, or their cap */
  settled(rules: SettleRules): Promise<void>;
}

/** Starts watching a page; call before it navigates. */
export async function watchSettle(page: Page): Promise<SettleWatch> {
  await page.addInitScript({ content: WATCH_ACTIVITY });
  const inFlight = new Set<Request>();
  let lastNetworkChange = Date.now();
  const started = (request: Request): void => {
    inFlight.add(request);
    lastNetworkChange = Date.now();
  };
  const ended = (request: Request): void => {
    inFlight.delete(request);
    lastNetworkChange = Date.now();
  };
  page.on('request', started);
  page.on('requestfinished', ended);
  page.on('requestfailed', ended);

  /** how long the page has been quiet, 0 while it is busy */
  async function quietForMs(timeLeftMs: number): Promise<number> {
    if (inFlight.size > 0) return 0;
    // A page too busy to answer (or navigating away) is not quiet.
    const state = await withDeadline(page.evaluate(readActivity, PROBE_KEY), timeLeftMs).catch(() => 'busy' as const);
    if (state === 'busy') return 0;
    const networkQuietMs = inFlight.size > 0 ? 0 : Date.now() - lastNetworkChange;
    // A document the watcher could not enter (an error page) is judged by the network alone.
    if (!state) return networkQuietMs;
    if (!state.complete || state.pendingTimers > 0 || state.pendingRequests > 0) return 0;
    return Math.min(networkQuietMs, state.sinceChangeMs);
  }

  return {
    async settled({ quietMs, capAt }) {
      for (;;) {
        const left = capAt - Date.now();
        if (left <= 0) return;
        const quiet = await quietForMs(left);
        if (quiet >= quietMs) return;
        // Busy pages are looked at again a fraction of the window later, quiet ones when their window would close.
        const wait = quiet === 0 ? quietMs / 4 : quietMs - quiet;
        await sleep(Math.max(0, Math.min(wait, capAt - Date.now())));
      }
    },
  };
}
