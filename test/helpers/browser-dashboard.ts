import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { SteppedEngine } from '../../src/engine/scheduler.ts';
import { startTestApp, type TestApp, type TestAppOptions } from './test-app.ts';
import { startFixtureServer, type FixtureServer } from './fixture-server.ts';
import { startTestEngine } from './test-engine.ts';
import { createOwner, signedIn } from './dashboard-client.ts';
import { defaultChromiumPath } from '../../src/config.ts';

// The dashboard in real headless Chromium against a listening server, with
// owners signed in through the real sign-in form. Every address is loopback.

/** The widths every dashboard page is checked at: a desktop and a phone. */
export const WIDTHS = [1280, 390] as const;

export interface BrowserDashboard {
  t: TestApp;
  site: FixtureServer;
  engine: SteppedEngine;
  base: string;
  /** a new account (plan pro unless told) whose owner has a dashboard password */
  newOwner(plan?: 'pro' | 'free'): Promise<{ accountId: string; email: string }>;
  /** a new browser window, `width` px wide, signed in as the owner through the sign-in form */
  pageAs(email: string, width: number): Promise<Page>;
  /** a full-page screenshot in test-artifacts/<dir>/ */
  shot(page: Page, name: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * Whether the dashboard tests keep screenshots (PAGEWATCH_TEST_SCREENSHOTS=1):
 * nothing reads them back, and the ~80 full-page captures and PNG encodings of
 * a run cost Chromium ~0.4 s of CPU each (docs/decisions/0083).
 */
const SCREENSHOTS_ASKED = process.env.PAGEWATCH_TEST_SCREENSHOTS === '1';

/** A full-page screenshot written to `path`, when screenshots are asked for. */
export async function fullPageShot(page: Page, path: string): Promise<void> {
  if (!SCREENSHOTS_ASKED) return;
  const take = () => page.screenshot({ path, fullPage: true });
  // Chromium can refuse a full-page capture once on a loaded machine (it failed a side-by-side .ci/run); a second
  // try is taken, and a second refusal fails the test.
  await take().catch((err: Error) => {
    if (!/Unable to capture screenshot/.test(err.message)) throw err;
    return take();
  });
}

export async function startBrowserDashboard(artifactsDir: string, options: TestAppOptions = {}): Promise<BrowserDashboard> {
  const artifacts = new URL(`../../test-artifacts/${artifactsDir}/`, import.meta.url).pathname;
  mkdirSync(artifacts, { recursive: true });
  const t = await startTestApp(options);
  const site = await startFixtureServer();
  const engine = startTestEngine(t);
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  const browser: Browser = await chromium.launch({
    executablePath: defaultChromiumPath(),
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run', '--disable-background-networking'],
  });
  return {
    t,
    site,
    engine,
    base,
    newOwner: (plan = 'pro') => createOwner(t.app, plan),
    async pageAs(email, width) {
      const client = await signedIn(t.app, email);
      const context = await browser.newContext({ baseURL: base, viewport: { width, height: width > 600 ? 900 : 844 } });
      await context.addCookies([...client.cookies].map(([name, value]) => ({ name, value, url: base })));
      return context.newPage();
    },
    shot: (page, name) => fullPageShot(page, `${artifacts}${name}.png`),
    async close() {
      await browser.close();
      await engine.stop();
      await t.close();
      await site.close();
    },
  };
}

/** Whether the page scrolls sideways (the document is wider than the window), and the outermost elements that stick out. */
export async function overflowsSideways(
  page: Page,
): Promise<{ overflows: boolean; scrollWidth: number; innerWidth: number; culprits: string[] }> {
  // A string, not a function: the test's TypeScript transform would add helpers the page does not have.
  return page.evaluate(`(() => {
    const right = window.innerWidth + 0.5;
    const culprits = [...document.body.querySelectorAll('*')]
      .filter((e) => e.getBoundingClientRect().right > right && !(e.parentElement !== document.body && e.parentElement.getBoundingClientRect().right > right))
      .map((e) => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + (typeof e.className === 'string' && e.className ? '.' + e.className.replace(/ /g, '.') : ''));
    const scrollWidth = document.scrollingElement.scrollWidth;
    return { overflows: scrollWidth > window.innerWidth, scrollWidth, innerWidth: window.innerWidth, culprits };
  })()`);
}
