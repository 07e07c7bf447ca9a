// Recognises the challenge and block pages of anti-bot walls (DESIGN §4
// Blocked pages), so that such a page is reported as the check issue
// `blocked` and never read as the site's content.
//
// The markers are modelled on the public markup of the common walls:
// Cloudflare, Akamai, DataDome, PerimeterX/HUMAN, Imperva and captcha walls
// made with reCAPTCHA, hCaptcha or Turnstile. Ordinary pages load some of the
// same vendors' scripts (Cloudflare's bot detection, PerimeterX's sensor, a
// contact form's reCAPTCHA), so a marker alone never blocks a page that
// answered 2xx: such a page must also be a small document with little text,
// which a wall is and a shop page is not.

import type { PageSource } from './page-source.ts';

export interface BlockEvidence {
  /** the final response's status, null when none arrived */
  status: number | null;
  /** the response's `cf-mitigated` header, null when absent */
  cfMitigated: string | null;
  /** the start of the document's text, at most SCREENED_CHARS; '' when no body was read */
  head: string;
  /** the whole document's length (characters or bytes) */
  length: number;
}

/** How much of a document the classifier reads: walls are small, so all of one fits. */
export const SCREENED_CHARS = 256 * 1024;

/** The start of a document the classifier reads, and the whole document's length. */
export function screenedPart(source: PageSource): { head: PageSource; length: number } {
  if (typeof source === 'string') return { head: source.slice(0, SCREENED_CHARS), length: source.length };
  // A copy of the start: posting a view would copy the whole page's buffer to a thread.
  return { head: { bytes: source.bytes.slice(0, SCREENED_CHARS), charset: source.charset }, length: source.bytes.length };
}

/** Error statuses whose body is read to tell a wall from an ordinary error. */
export const WALL_STATUSES: ReadonlySet<number> = new Set([403, 429, 503]);

// A page with more visible text than this is content, whatever scripts it carries.
const LITTLE_TEXT_CHARS = 2500;

interface WallMarker {
  /** what the page is, as the issue's reason says it */
  reason: string;
  pattern: RegExp;
}

// Markers no ordinary page carries: the challenge's own script, form or captcha host.
const VENDOR_WALLS: readonly WallMarker[] = [
  {
    reason: 'a Cloudflare challenge page',
    pattern:
      /window\._cf_chl_opt|\/cdn-cgi\/challenge-platform\/h\/[a-z]\/orchestrate\/|id=["']?challenge-(?:form|running|stage)\b|cf-browser-verification|<title>\s*just a moment\.\.\.\s*<\/title>/i,
  },
  {
    reason: 'a Cloudflare block page',
    pattern: /id=["']?cf-error-details|<title>\s*attention required!\s*\|\s*cloudflare\s*<\/title>|sorry, you have been blocked/i,
  },
  { reason: 'a DataDome captcha page', pattern: /(?:geo|ct|interstitial)\.captcha-delivery\.com|\bvar\s+dd\s*=\s*\{\s*['"]rt['"]\s*:/i },
  {
    reason: 'a PerimeterX (HUMAN) challenge page',
    pattern: /id=["']?px-captcha\b|captcha\.px-cdn\.net|<title>\s*access to this page has been denied\.?\s*<\/title>/i,
  },
  {
    reason: 'an Akamai access-denied page',
    pattern: /errors(?:\.|&#46;)edgesuite(?:\.|&#46;)net|reference&#32;&#35;[0-9a-f]|\/_sec\/cp_challenge\//i,
  },
  { reason: 'an Imperva (Incapsula) block page', pattern: /incapsula incident id|request unsuccessful\. incapsula/i },
];

const CAPTCHA_WIDGET =
  /class=["'][^"']*\b(?:g-recaptcha|h-captcha|cf-turnstile)\b|(?:google\.com|recaptcha\.net)\/recaptcha\/(?:api|enterprise)\.js|hcaptcha\.com\/1\/api\.js|challenges\.cloudflare\.com\/turnstile\//i;

// What a wall says to the visitor; an ordinary page may say some of it in passing, hence the size rule.
const WALL_WORDS =
  /checking your browser|checking if the site connection is secure|verify(?:ing)? (?:that )?you are (?:a )?human|are you a (?:robot|human)|not a robot|unusual traffic from your (?:computer|network)|complete the security check|enable javascript and cookies to continue|pardon our interruption|access denied|access to this page has been denied|bot protection|security check|one more step/i;

const TITLE = /<title[^>]*>([\s\S]{0,300}?)<\/title>/i;
const H1 = /<h1\b[^>]*>([\s\S]{0,300}?)<\/h1>/gi;

/**
 * Whether blockedReason reads the document at all: not for an answer it
 * takes as no wall by its status or size alone (an error other than the wall
 * statuses, a page larger than walls are), so a caller need not decode it.
 */
export function readsDocument({ status, length }: Pick<BlockEvidence, 'status' | 'length'>): boolean {
  if (status !== null && WALL_STATUSES.has(status)) return true;
  return (status === null || (status >= 200 && status <= 299)) && length <= SCREENED_CHARS;
}

/** The reason the page is a wall, or null when it is (or may be) the site's content. */
export function blockedReason(evidence: BlockEvidence): string | null {
  const mitigated = evidence.cfMitigated?.trim().toLowerCase();
  if (mitigated === 'challenge' || mitigated === 'block') return `a Cloudflare ${mitigated} (cf-mitigated: ${mitigated})`;
  const { status, head } = evidence;
  if (head === '' || !readsDocument(evidence)) return null;
  const vendor = () => VENDOR_WALLS.find((wall) => wall.pattern.test(head))?.reason;
  if (status !== null && WALL_STATUSES.has(status)) {
    const wall = vendor();
    if (wall) return wall;
    if (CAPTCHA_WIDGET.test(head)) return 'a captcha page';
    return WALL_WORDS.test(visibleText(head)) ? 'a bot check or access-denied page' : null;
  }
  // the vendors' markers are looked for only in a page small enough and with little text enough to be a wall
  if (visibleText(head).length > LITTLE_TEXT_CHARS) return null;
  const wall = vendor();
  if (wall) return wall;
  // A small page may mention verification in passing (a contact form's captcha); a wall says it in its headline.
  if (!WALL_WORDS.test(headline(head))) return null;
  return CAPTCHA_WIDGET.test(head) ? 'a captcha page' : 'a bot check page';
}

/** The issue message of a wall: what the dashboard and the API show. */
export function blockedMessage(reason: string, status: number | null): string {
  return `the site blocked the check: ${reason}${status === null ? '' : ` (HTTP ${status})`}`;
}

/** The title and first-level headings: what a page says it is. */
function headline(head: string): string {
  const headings = [...head.matchAll(H1)].map((match) => match[1]);
  return [TITLE.exec(head)?.[1] ?? '', ...headings].join(' ').replace(/<[^>]*>/g, ' ');
}

/** The document's text without scripts, styles, comments and tags: a measure of how much it says, not a rendering. */
function visibleText(head: string): string {
  return head
    .replace(/<(script|style|noscript|template)\b[\s\S]*?<\/\1\s*>/gi, ' ')
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/<[^>]*>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}
