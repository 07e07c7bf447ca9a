import type { CheckIssue, IssueCode } from '../../domain/issues.ts';
import type { LoadMode } from '../../domain/load-mode.ts';
import type { Lane } from '../../domain/fair-queue.ts';
import type { PageSource } from '../../domain/page-source.ts';
import type { PageValidators } from '../../domain/page-validators.ts';
import type { Step, StepOutcome } from '../../domain/steps.ts';

export interface LoadRequest {
  url: string;
  mode: LoadMode;
  /** aborts the load (shutdown, lease loss, a client gone), also while it waits its turn */
  signal?: AbortSignal;
  /** the name of the operator's proxy to load through (DESIGN §5 Outbound proxies); none: direct */
  proxy?: string;
  /** whose turn the load takes where loads wait (the browser's pages); none: a check of no account */
  turn?: { account: string; lane: Lane };
  /** html mode: the validators of the last full answer; the page is asked for only if it changed since (a 304 answers notModified) */
  validators?: PageValidators;
  /** browser mode: steps run after the page has loaded and before it is read, within the same deadline */
  steps?: readonly Step[];
  /** values of the account secrets the steps type, by name (never returned: scrubbed from the result) */
  secrets?: ReadonlyMap<string, string>;
}

export interface LoadResult {
  /** the URL after redirects */
  finalUrl: string;
  /** HTTP status of the final response, null when no response arrived */
  status: number | null;
  /** the document: HTML text (rendered DOM in browser mode) or the html loader's bytes, null when none could be read (pageText reads either) */
  html: PageSource | null;
  /** load issues (target_id null): address_refused, blocked, fetch_failed, timeout, too_large, not_html, http_status; load_incomplete comes with the page read as it stood */
  issues: CheckIssue[];
  /** the response's cf-mitigated header (Cloudflare's mark of a challenge), when it had one */
  cfMitigated?: string;
  /** the start of a 403/429/503 answer's HTML, kept only to recognise an anti-bot wall; never read as content */
  errorPage?: PageSource;
  /** seconds the site asked us to wait (Retry-After on 429/503), for per-host backoff */
  retryAfterSeconds?: number;
  /** html mode, a conditional request: the server answered 304, the page is the one the validators came with (html is null, no issue) */
  notModified?: boolean;
  /** html mode, a page read whole: the answer's validators (null when it sent none) */
  validators?: PageValidators | null;
  /** browser mode with steps: each step run, in order; a failed one is the last and comes with the issue step_failed */
  steps?: StepOutcome[];
}

/** One interface, two modes: html (undici) and browser (Chromium). */
export interface PageLoader {
  load(request: LoadRequest): Promise<LoadResult>;
  close(): Promise<void>;
}

/** An issue of the whole load, as LoadResult.issues holds them. */
export function loadIssue(code: IssueCode, message: string): CheckIssue {
  return { target_id: null, code, message };
}
