// A check issue: a value that could not be determined, recorded instead of a guess.
export type IssueCode =
  | 'selector_missing'
  | 'selector_invalid'
  | 'selector_too_costly'
  | 'extraction_timeout'
  | 'selector_ambiguous'
  | 'price_not_found'
  | 'price_ambiguous'
  | 'currency_mismatch'
  | 'availability_unknown'
  | 'phrase_missing'
  | 'links_missing'
  | 'links_too_many'
  /** an anti-bot wall answered instead of the page (domain/blocked-page.ts) */
  | 'blocked'
  /** the SSRF guard refused the address (the URL, a redirect or what its name resolved to) */
  | 'address_refused'
  | 'fetch_failed'
  | 'timeout'
  | 'load_incomplete'
  | 'too_large'
  | 'not_html'
  | 'json_invalid'
  | 'pdf_unreadable'
  | 'http_status'
  | 'allowance_exhausted'
  | 'site_backoff'
  | 'check_cancelled'
  | 'monitor_changed'
  | 'not_in_plan'
  | 'step_failed';

export interface CheckIssue {
  /** null for issues of the whole load (fetch failures), else the target's id */
  target_id: string | null;
  code: IssueCode;
  message: string;
}

/** Load issues that come with a page read all the same: warnings, not failures of the load. */
export const PAGE_READ_ANYWAY: ReadonlySet<IssueCode> = new Set(['load_incomplete']);
