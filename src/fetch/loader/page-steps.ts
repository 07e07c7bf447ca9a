import type { Page, Route } from 'playwright-core';
import { sameSite, type Step, type StepOutcome } from '../../domain/steps.ts';
import { withDeadline } from './deadline.ts';
import type { SettleWatch } from './page-settle.ts';
import { performStep, type StepFailure } from './step-actions.ts';

// The steps of a browser-mode load (issue #42), run in order on the loaded
// page within the load's deadline. While they run, a main-frame navigation to
// another site (a click, a goto, a redirect, a script) is refused; every
// other request still goes through the filtering proxy (the SSRF guard).
// After each step the page settles like after the load, then its URL and
// title are noted. The first failing step ends the list.

export interface StepRunLimits {
  deadline: number;
  settleMs: number;
  settleQuietMs: number;
  /** time kept back from the steps for reading the page afterwards */
  readReserveMs: number;
}

export interface StepRun {
  outcomes: StepOutcome[];
  /** the outcome of the step that failed, when one did */
  failed: StepOutcome | null;
  /**
   * where the page last stood on the monitor's site when a redirect the route
   * did not see took it to another site (whose page is then not to be read);
   * null while the page is on the site
   */
  leftSiteFrom: string | null;
}

export async function runSteps(
  page: Page,
  steps: readonly Step[],
  options: { site: URL; secrets: ReadonlyMap<string, string>; settle: SettleWatch; limits: StepRunLimits },
): Promise<StepRun> {
  const { limits } = options;
  let refused: string | null = null;
  const guard = (route: Route) => {
    const request = route.request();
    const offSite =
      request.isNavigationRequest() &&
      request.frame() === page.mainFrame() &&
      URL.canParse(request.url()) &&
      !sameSite(new URL(request.url()), options.site);
    if (!offSite) return route.fallback().catch(() => undefined);
    refused = new URL(request.url()).hostname;
    // A 204 answer commits no navigation, so the page stays as it was (an abort would show an error page).
    return route.fulfill({ status: 204 }).catch(() => undefined);
  };
  await page.route('**/*', guard);
  const outcomes: StepOutcome[] = [];
  let onSite = page.url();
  try {
    for (const [index, step] of steps.entries()) {
      const budgetMs = limits.deadline - limits.readReserveMs - Date.now();
      const failure: StepFailure | null =
        budgetMs <= 0
          ? { code: 'timeout', message: "the load's time budget ran out before this step" }
          : await performStep(step, { page, budgetMs, secrets: options.secrets });
      await options.settle.settled({
        quietMs: limits.settleQuietMs,
        capAt: Math.min(Date.now() + limits.settleMs, limits.deadline - limits.readReserveMs),
      });
      const landed = page.url();
      // A redirect the route did not see (a server's 3xx) still may not leave the site.
      const left = URL.canParse(landed) && /^https?:/.test(landed) && !sameSite(new URL(landed), options.site);
      if (refused === null && left) refused = new URL(landed).hostname;
      const issue = refused !== null ? navigationRefused(refused, options.site) : failure;
      // The other site's page is not noted either: its title is none of the user's business.
      const outcome: StepOutcome = {
        index,
        action: step.action,
        ok: issue === null,
        issue,
        url: landed,
        title: left ? null : await titleOf(page),
      };
      outcomes.push(outcome);
      if (issue !== null) return { outcomes, failed: outcome, leftSiteFrom: left ? onSite : null };
      onSite = landed;
    }
    return { outcomes, failed: null, leftSiteFrom: null };
  } finally {
    await page.unroute('**/*', guard).catch(() => undefined);
  }
}

function navigationRefused(host: string, site: URL): StepFailure {
  return { code: 'navigation_refused', message: `the page tried to go to ${host}, which is not the monitor's site (${site.hostname})` };
}

async function titleOf(page: Page): Promise<string | null> {
  const title = await withDeadline(page.title(), 2_000).catch(() => '');
  return title === '' ? null : title.slice(0, 200);
}
