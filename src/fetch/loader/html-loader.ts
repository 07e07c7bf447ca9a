import type { Dispatcher } from 'undici';
import type { CheckIssue, IssueCode } from '../../domain/issues.ts';
import { GuardError, vetUrl, type GuardPolicy, type LookupFn } from '../ssrf/guard.ts';
import { createGuardedAgent } from '../ssrf/guarded-agent.ts';
import type { OutboundProxy } from '../../domain/network/outbound-proxies.ts';
import { ACCEPT_ENCODING, BodyTooLargeError, readDecodedBody } from './http-body.ts';
import { documentFormatOf, firstHeader, looksLikeHtml, parseContentType, parseRetryAfter } from './http-headers.ts';
import { readErrorPage, withWallEvidence } from './wall-evidence.ts';
import { loadIssue, type LoadRequest, type LoadResult, type PageLoader } from './types.ts';
import { conditionalHeaders, validatorsOf } from '../../domain/page-validators.ts';

// The `html` page loader: one GET (plus redirects) with undici, through the
// SSRF guard at every hop and at connect time, within DESIGN §5's limits.
//
// Decisions:
// * An answer with status >= 400 (or a 3xx that is not a followed redirect)
//   yields an `http_status` issue and html null:
//   its body is not read, because target values are never taken from an
//   error page and a blocked/rate-limited site should not cost a download;
//   only a 403, 429 or 503 keeps the start of its body, as `errorPage`, to
//   tell an anti-bot wall from an ordinary error (wall-evidence.ts).
// * A redirect to a refused URL is `address_refused`; more than maxRedirects is
//   `fetch_failed`. finalUrl is the last URL actually requested.
// * Without Content-Type the body is sniffed for HTML; JSON types and PDF are
//   read as documents of their format; any other type is `not_html` and its
//   body is not read.
// * A conditional request (LoadRequest.validators) sends If-None-Match /
//   If-Modified-Since; its 304 is `notModified`, not an `http_status` issue.
//   A page read whole reports its own validators for the next check.

export interface HtmlLoaderOptions {
  /** the SSRF guard policy (operator's allowed ports and trusted networks); required */
  policy: GuardPolicy;
  /** largest decoded (and raw) body accepted; default 5 MiB (5242880 bytes) */
  maxBodyBytes?: number;
  /** deadline for the whole load, redirects included; default 60000 ms */
  timeoutMs?: number;
  /** deadline for DNS resolution and, separately, for TCP+TLS connect; default 10000 ms */
  connectTimeoutMs?: number;
  /** deadline for response headers, and for each pause between body chunks; default 30000 ms */
  readTimeoutMs?: number;
  /** redirects followed at most; default 5 */
  maxRedirects?: number;
  /** User-Agent header; default DEFAULT_USER_AGENT */
  userAgent?: string;
  /** DNS resolution; default the system resolver (tests pass a fake) */
  lookup?: LookupFn;
  /** the operator's proxies a load may name (LoadRequest.proxy) */
  proxies?: OutboundProxy[];
}

export const DEFAULT_USER_AGENT = 'pagewatch/0.1 (+https://github.com/pagewatch; page change monitor)';

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const NOT_MODIFIED = 304;
const RETRY_AFTER_STATUSES = new Set([429, 503]);
// Undici's own timeouts: connect (and our DNS step), headers, gaps in the body.
const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

interface Settings {
  policy: GuardPolicy;
  maxBodyBytes: number;
  timeoutMs: number;
  maxRedirects: number;
  headers: Record<string, string>;
}

function failed(finalUrl: string, status: number | null, code: IssueCode, message: string): LoadResult {
  return { finalUrl, status, html: null, issues: [loadIssue(code, message)] };
}

function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const code = (err as NodeJS.ErrnoException).code;
  const cause = err.cause instanceof Error ? `: ${err.cause.message}` : '';
  return `${code ? `${code} ` : ''}${err.message}${cause}`;
}

/** Maps whatever a load threw to its issue; page problems never escape as exceptions. */
function issueFor(err: unknown, deadline: AbortSignal, settings: Settings): CheckIssue {
  if (err instanceof GuardError) return loadIssue('address_refused', err.message);
  if (err instanceof BodyTooLargeError) return loadIssue('too_large', err.message);
  if (deadline.aborted) return loadIssue('timeout', `the page did not load within ${settings.timeoutMs} ms`);
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code && TIMEOUT_CODES.has(code)) return loadIssue('timeout', describe(err));
  return loadIssue('fetch_failed', describe(err));
}

async function finish(
  response: Dispatcher.ResponseData,
  url: URL,
  settings: Settings,
  signal: AbortSignal,
  conditional: boolean,
): Promise<LoadResult> {
  const status = response.statusCode;
  const finalUrl = url.href;
  if (status === NOT_MODIFIED && conditional) {
    await response.body.dump();
    return { finalUrl, status, html: null, issues: [], notModified: true };
  }
  if (status >= 300) {
    const errorPage = await readErrorPage(response, signal);
    const result = failed(finalUrl, status, 'http_status', `the server answered HTTP ${status}`);
    if (RETRY_AFTER_STATUSES.has(status)) {
      const seconds = parseRetryAfter(response.headers['retry-after']);
      if (seconds !== undefined) result.retryAfterSeconds = seconds;
    }
    return withWallEvidence(result, response.headers, errorPage);
  }
  const type = parseContentType(response.headers['content-type']);
  const format = type.mime === null ? 'html' : documentFormatOf(type.mime);
  if (format === null) {
    await response.body.dump();
    return failed(finalUrl, status, 'not_html', `the content type ${type.mime} is not HTML, JSON or PDF`);
  }
  const bytes = await readDecodedBody(response.body, response.headers['content-encoding'], settings.maxBodyBytes, signal);
  if (type.mime === null && !looksLikeHtml(bytes)) {
    return failed(finalUrl, status, 'not_html', 'the answer has no content type and does not look like HTML');
  }
  const validators = validatorsOf(firstHeader(response.headers.etag), firstHeader(response.headers['last-modified']));
  // Decoded by whoever reads the page (an extraction thread), not on the event loop.
  return withWallEvidence({ finalUrl, status, html: { bytes, charset: type.charset, format }, issues: [], validators }, response.headers);
}

async function loadPage(request: LoadRequest, settings: Settings, agent: Dispatcher): Promise<LoadResult> {
  const deadline = AbortSignal.timeout(settings.timeoutMs);
  const signal = request.signal ? AbortSignal.any([request.signal, deadline]) : deadline;
  let finalUrl = request.url;
  let status: number | null = null;
  let target = request.url;
  const { validators } = request;
  const conditional = validators !== undefined;
  const headers = validators ? { ...settings.headers, ...conditionalHeaders(validators) } : settings.headers;
  try {
    for (let redirects = 0; ; redirects++) {
      const vetted = vetUrl(target, settings.policy);
      if (!vetted.ok) {
        const where = redirects === 0 ? '' : ` (redirect to ${target})`;
        return failed(finalUrl, status, 'address_refused', `blocked by the SSRF guard: ${vetted.reason}${where}`);
      }
      finalUrl = vetted.url.href;
      const response = await agent.request({
        origin: vetted.url.origin,
        path: `${vetted.url.pathname}${vetted.url.search}`,
        method: 'GET',
        headers,
        signal,
      });
      status = response.statusCode;
      const location = firstHeader(response.headers.location);
      if (!REDIRECTS.has(status) || location === undefined) return await finish(response, vetted.url, settings, signal, conditional);
      await response.body.dump();
      if (redirects >= settings.maxRedirects) {
        return failed(finalUrl, status, 'fetch_failed', `more than ${settings.maxRedirects} redirects`);
      }
      if (!URL.canParse(location, vetted.url)) {
        return failed(finalUrl, status, 'fetch_failed', `invalid redirect Location ${JSON.stringify(location)}`);
      }
      target = new URL(location, vetted.url).href;
    }
  } catch (err) {
    return { finalUrl, status, html: null, issues: [issueFor(err, deadline, settings)] };
  }
}

export function createHtmlLoader(options: HtmlLoaderOptions): PageLoader {
  const readTimeoutMs = options.readTimeoutMs ?? 30_000;
  const agentVia = (proxy?: OutboundProxy) =>
    createGuardedAgent({
      policy: options.policy,
      lookup: options.lookup,
      connectTimeoutMs: options.connectTimeoutMs ?? 10_000,
      headersTimeoutMs: readTimeoutMs,
      bodyTimeoutMs: readTimeoutMs,
      proxy,
    });
  const agent = agentVia();
  // One agent per proxy: a connection kept alive through one proxy never serves a load meant for another.
  const viaProxy = new Map((options.proxies ?? []).map((proxy) => [proxy.name, agentVia(proxy)]));
  const settings: Settings = {
    policy: options.policy,
    maxBodyBytes: options.maxBodyBytes ?? 5 * 1024 * 1024,
    timeoutMs: options.timeoutMs ?? 60_000,
    maxRedirects: options.maxRedirects ?? 5,
    headers: {
      'user-agent': options.userAgent ?? DEFAULT_USER_AGENT,
      accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.5',
      'accept-encoding': ACCEPT_ENCODING,
    },
  };
  return {
    load: (request) => {
      const chosen = request.proxy === undefined ? agent : viaProxy.get(request.proxy);
      if (chosen === undefined) {
        return Promise.resolve(failed(request.url, null, 'fetch_failed', `no proxy named ${request.proxy} is configured`));
      }
      return loadPage(request, settings, chosen);
    },
    close: async () => {
      await Promise.all([agent, ...viaProxy.values()].map((a) => a.close()));
    },
  };
}
