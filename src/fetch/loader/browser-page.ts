import type { Page, Response } from 'playwright-core';
import { storableText } from '../../domain/storable-text.ts';
import { SCREENED_CHARS, WALL_STATUSES } from '../../domain/blocked-page.ts';
import type { CheckIssue } from '../../domain/issues.ts';
import type { ProxyEvent } from '../browser/filtering-proxy.ts';
import { isHtmlMime, parseRetryAfter } from './http-headers.ts';
import { loadIssue, type LoadResult } from './types.ts';
import { DeadlineError, withDeadline } from './deadline.ts';
import { watchSettle, type SettleWatch } from './page-settle.ts';
import { encodingToDeclare, serveDeclared } from './document-encoding.ts';
import { runSteps } from './page-steps.ts';
import { stepFailedMessage, type Step } from '../../domain/steps.ts';
import { scrubSecrets } from './scrub-secrets.ts';

// One navigation in a prepared page, turned into a LoadResult. Everything a
// page can do wrong becomes an issue; nothing here throws.

export interface PageLoadLimits {
  /** absolute time (ms since epoch) by which the load must be done */
  deadline: number;
  /** longest wait, from the document's arrival, for the load event and the page to settle */
  settleMs: number;
  /** how long network and DOM must be still, with no short timer pending, for the page to count as settled */
  settleQuietMs: number;
  maxBodyBytes: number;
  maxRedirects: number;
}

/** Steps to run once the page has settled, before it is read (issue #42). */
export interface PageSteps {
  list: readonly Step[];
  /** the monitor's page: navigations off its site are refused */
  site: URL;
  /** values of the secrets the steps type, by name; scrubbed from everything the load returns */
  secrets: ReadonlyMap<string, string>;
}

// Reading the page after the steps needs a moment of the deadline.
const READ_RESERVE_MS = 2_000;

/** What a load answers instead of the page of another site a step was redirected to: nothing of it. */
const OFF_SITE_PAGE = '<!doctype html><html><head><title></title></head><body></body></html>';

export async function loadPage(
  page: Page,
  url: string,
  limits: PageLoadLimits,
  proxyEvents: readonly ProxyEvent[],
  steps?: PageSteps,
): Promise<LoadResult> {
  const result = await loadAndRead(page, url, limits, proxyEvents, steps);
  return steps && steps.secrets.size > 0 ? scrubSecrets(result, [...steps.secrets.values()]) : result;
}

async function loadAndRead(
  page: Page,
  url: string,
  limits: PageLoadLimits,
  proxyEvents: readonly ProxyEvent[],
  steps?: PageSteps,
): Promise<LoadResult> {
  const remaining = (): number => Math.max(1, limits.deadline - Date.now());
  // The latest main-frame document request and response: a script may
  // navigate again after the first load, and what counts is where it ended.
  let lastNavigation = url;
  let mainResponse: Response | null = null;
  page.on('request', (request) => {
    if (request.isNavigationRequest() && request.frame() === page.mainFrame()) lastNavigation = request.url();
  });
  page.on('response', (response) => {
    const request = response.request();
    if (request.isNavigationRequest() && request.frame() === page.mainFrame()) mainResponse = response;
  });

  let settle: SettleWatch;
  try {
    settle = await watchSettle(page);
    // Only the document itself must arrive: a subresource that never answers
    // (a tracker host behind a blocker) holds the load event back for ever.
    const first = await page.goto(url, { waitUntil: 'commit', timeout: remaining() });
    mainResponse ??= first;
  } catch (err) {
    return failed(url, lastNavigation, err, proxyEvents);
  }
  let loadEventCame = await loadAndSettle(page, settle, limits);

  let finalUrl = page.url();
  if (finalUrl.startsWith('chrome-error:')) {
    return failed(url, lastNavigation, new Error('the page navigated to an address that failed'), proxyEvents);
  }
  const response: Response | null = mainResponse;
  const status = response ? response.status() : null;
  // A plain-http request the proxy refused (403) or could not connect (502)
  // gets the proxy's own answer, which is no status of the site.
  const proxyEvent = status === 403 || status === 502 ? matchingEvent(response?.url() ?? '', proxyEvents) : undefined;
  if (proxyEvent) {
    const failure = proxyIssue(proxyEvent);
    return { finalUrl, status: null, html: null, issues: [failure] };
  }
  const cfMitigated = response?.headers()['cf-mitigated'];
  // Once steps have run, every result carries their outcomes.
  const extra: Partial<LoadResult> = {};
  const result = (issues: CheckIssue[], html: string | null = null, more: Partial<LoadResult> = {}): LoadResult => ({
    finalUrl,
    status,
    html,
    issues,
    ...(cfMitigated === undefined ? {} : { cfMitigated }),
    ...extra,
    ...more,
  });
  if (response) {
    if (redirectCount(response) > limits.maxRedirects) {
      return result([loadIssue('fetch_failed', `more than ${limits.maxRedirects} redirects`)]);
    }
    if (status !== null && status >= 400) {
      const retryAfter = status === 429 || status === 503 ? parseRetryAfter(response.headers()['retry-after']) : undefined;
      // A wall's page as rendered, kept only to recognise the wall (DESIGN §4 Blocked pages).
      const errorPage = WALL_STATUSES.has(status) ? await withDeadline(page.content(), remaining()).catch(() => null) : null;
      return result([loadIssue('http_status', `the page answered HTTP ${status}`)], null, {
        ...(retryAfter === undefined ? {} : { retryAfterSeconds: retryAfter }),
        ...(errorPage === null ? {} : { errorPage: errorPage.slice(0, SCREENED_CHARS) }),
      });
    }
    const type = (response.headers()['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    // A missing type is sniffed by Chromium like any browser would; a declared
    // non-HTML type is not a page to watch in browser mode.
    if (type !== '' && !isHtmlMime(type)) {
      return result([loadIssue('not_html', `the page is ${type}, not HTML`)]);
    }
    const redeclared = await withDeadline(encodingToDeclare(page, response), remaining()).catch(() => null);
    if (redeclared) {
      try {
        await serveDeclared(page, response, redeclared);
        await page.goto(response.url(), { waitUntil: 'commit', timeout: remaining() });
      } catch (err) {
        return failed(url, lastNavigation, err, proxyEvents);
      }
      loadEventCame = await loadAndSettle(page, settle, limits);
    }
  }
  const readIssues = loadEventCame
    ? []
    : [loadIssue('load_incomplete', 'the page was read before its load event: some of its resources never finished loading')];
  const stepRun =
    steps && steps.list.length > 0
      ? await runSteps(page, steps.list, {
          site: steps.site,
          secrets: steps.secrets,
          settle,
          limits: {
            deadline: limits.deadline,
            settleMs: limits.settleMs,
            settleQuietMs: limits.settleQuietMs,
            readReserveMs: READ_RESERVE_MS,
          },
        })
      : null;
  if (stepRun) {
    finalUrl = page.url();
    Object.assign(extra, { steps: stepRun.outcomes });
    if (stepRun.failed) readIssues.push(loadIssue('step_failed', stepFailedMessage(stepRun.failed)));
    if (stepRun.leftSiteFrom !== null) {
      // A redirect took the page to another site: that page is never read, not even to show why the step failed.
      finalUrl = stepRun.leftSiteFrom;
      return result(readIssues, OFF_SITE_PAGE);
    }
  }

  let html: string;
  try {
    html = await withDeadline(page.content(), remaining());
  } catch (err) {
    return result([
      err instanceof DeadlineError
        ? loadIssue('timeout', 'reading the rendered page timed out')
        : loadIssue('fetch_failed', 'the rendered page could not be read'),
    ]);
  }
  if (Buffer.byteLength(html) > limits.maxBodyBytes) {
    return result([loadIssue('too_large', `the rendered page is larger than ${limits.maxBodyBytes} bytes`)]);
  }
  return result(readIssues, storableText(html));
}

/**
 * Waits for the load event, then for the page to settle, both within the
 * settle cap; whether the load event came. Settling is a hint that scripts
 * have finished, not a requirement: pages that poll or animate forever are
 * read when the cap runs out, and so are pages whose load event never comes.
 */
async function loadAndSettle(page: Page, settle: SettleWatch, limits: PageLoadLimits): Promise<boolean> {
  const capAt = Math.min(Date.now() + limits.settleMs, limits.deadline);
  const loadEventCame = await page.waitForLoadState('load', { timeout: Math.max(1, capAt - Date.now()) }).then(
    () => true,
    () => false,
  );
  if (loadEventCame) await settle.settled({ quietMs: limits.settleQuietMs, capAt });
  return loadEventCame;
}

function failed(url: string, lastNavigation: string, err: unknown, proxyEvents: readonly ProxyEvent[]): LoadResult {
  const base = { finalUrl: lastNavigation || url, status: null, html: null };
  const event = matchingEvent(lastNavigation, proxyEvents);
  if (event) return { ...base, issues: [proxyIssue(event)] };
  // By name, not instanceof: playwright-core (~90 MiB resident) is loaded only when a browser starts (chromium.ts).
  if (err instanceof Error && err.name === 'TimeoutError')
    return { ...base, issues: [loadIssue('timeout', 'the page did not load in time')] };
  const message = err instanceof Error ? err.message : String(err);
  // Chromium turns a non-renderable main response (a zip, a PDF) into a download.
  if (message.includes('Download is starting')) return { ...base, issues: [loadIssue('not_html', 'the page is a download, not HTML')] };
  return { ...base, issues: [loadIssue('fetch_failed', `the page could not be loaded: ${firstLine(message)}`)] };
}

/** the proxy's latest event for the host and port of an http(s) URL */
function matchingEvent(raw: string, events: readonly ProxyEvent[]): ProxyEvent | undefined {
  if (!URL.canParse(raw)) return undefined;
  const url = new URL(raw);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  for (let i = events.length - 1; i >= 0; i -= 1) {
    const event = events[i]!;
    if (event.host === host && event.port === port) return event;
  }
  return undefined;
}

function proxyIssue(event: ProxyEvent): CheckIssue {
  return event.kind === 'blocked'
    ? loadIssue('address_refused', `the address is not allowed: ${event.reason}`)
    : loadIssue('fetch_failed', `could not connect to ${event.host}:${event.port}: ${event.reason}`);
}

function redirectCount(response: Response): number {
  let count = 0;
  for (let request = response.request().redirectedFrom(); request; request = request.redirectedFrom()) count += 1;
  return count;
}

function firstLine(message: string): string {
  return message.split('\n')[0]!.slice(0, 200);
}
