// test-lane: waits (Chromium's loads, each until the page is still or a cap passes)
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { createBrowserLoader } from '../../../src/fetch/loader/browser-loader.ts';
import type { PageLoader } from '../../../src/fetch/loader/types.ts';
import { startFixtureServer, type FixtureServer } from '../../helpers/fixture-server.ts';
import { pageText } from '../../../src/domain/page-source.ts';
import { firstOf, waitUntil } from '../../helpers/deadline.ts';
import { chromium, type Browser, type Page } from 'playwright-core';
import { watchSettle } from '../../../src/fetch/loader/page-settle.ts';
import { defaultChromiumPath } from '../../../src/config.ts';

// When the browser loader reads a page after its load event: real Chromium
// against the fixture pages of test/fixtures/site/settle/, each of which
// writes its price in a different late way.
const policy = { allowPorts: [80, 443], trustedCidrs: ['127.0.0.0/8'] };
const SETTLE_CAP_MS = 2000;
const QUIET_MS = 100;

function priceOf(html: string): string | undefined {
  return /<p id="price">([^<]*)<\/p>/.exec(html)?.[1];
}

describe('browser loader settle', () => {
  let site: FixtureServer;
  let loader: PageLoader;

  before(async () => {
    site = await startFixtureServer({
      '/settle/slow-price': async (_req, res) => {
        await sleep(300);
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ price: '$249.00' }));
      },
    });
    loader = createBrowserLoader({ policy, settleMs: SETTLE_CAP_MS, settleQuietMs: QUIET_MS, timeoutMs: 20_000 });
  });

  after(async () => {
    await loader?.close();
    await site?.close();
  });

  const load = async (path: string, from: PageLoader = loader) => {
    const result = await from.load({ url: `${site.url}${path}`, mode: 'browser' });
    assert.deepEqual(result.issues, []);
    return pageText(result.html ?? '');
  };

  /** Runs `use` with a loader of other settle limits, its Chromium already started, and closes it. */
  const withLoader = async (settle: { settleMs: number; settleQuietMs: number }, use: (own: PageLoader) => Promise<void>) => {
    const own = createBrowserLoader({ policy, ...settle, timeoutMs: 20_000 });
    try {
      await load('/settle/late-fetch.html', own);
      await use(own);
    } finally {
      await own.close();
    }
  };

  it('waits for a request in flight after the load event and reads what its answer wrote', async () => {
    assert.equal(priceOf(await load('/settle/late-fetch.html')), '$249.00');
  });

  it('waits for a pending timer longer than the quiet window', async () => {
    assert.equal(priceOf(await load('/settle/late-timer.html')), '$249.00');
  });

  it('waits until the DOM has been still for the quiet window', async () => {
    // The page changes every 40 ms for 800 ms; a 400 ms window is far above its steps (a renderer starved by a
    // loaded machine must not look quiet between two), and network quiet alone would read it before the price.
    await withLoader({ settleMs: 5000, settleQuietMs: 400 }, async (own) => {
      assert.equal(priceOf(await load('/settle/counting-down.html', own)), '$249.00');
    });
  });

  it('reads a page that never stops changing when the settle cap runs out', async () => {
    // A quiet window far above the page's 30 ms ticks: a renderer starved by a loaded machine must not look quiet.
    // The cap is the contract: the read must not come before a timer of the cap's length started with the load.
    await withLoader({ settleMs: SETTLE_CAP_MS, settleQuietMs: 1000 }, async (own) => {
      const loading = load('/settle/ticking.html', own);
      assert.equal(await firstOf(loading, SETTLE_CAP_MS), 'timer', 'read before the settle cap ran out');
      assert.equal(priceOf(await loading), '$249.00');
    });
  });

  it('does not wait for a timer whose handler re-arms itself (a poll) after its first run', async () => {
    // Waiting for the poll would hold the read until the cap: it must come before a timer of the cap's length.
    // A cap far above a load on a busy machine, so only waiting for the poll can reach it.
    const cap = 15_000;
    await withLoader({ settleMs: cap, settleQuietMs: QUIET_MS }, async (own) => {
      const loading = load('/settle/polling.html', own);
      assert.equal(await firstOf(loading, cap), 'work', 'read only at the settle cap');
      assert.equal(priceOf(await loading), '$249.00');
    });
  });
});

describe("the page's own requests", () => {
  let site: FixtureServer;
  let browser: Browser;
  /** the answers of the requests the site holds */
  const held: (() => void)[] = [];
  const answerAll = () => held.splice(0).forEach((answer) => answer());

  before(async () => {
    site = await startFixtureServer({
      '/own/page': (_req, res) => void res.writeHead(200, { 'content-type': 'text/html' }).end('<p id="out">before</p>'),
      '/own/held': async (_req, res) => {
        await new Promise<void>((resolve) => held.push(resolve));
        res.writeHead(200, { 'content-type': 'application/json' }).end('[]');
      },
    });
    browser = await chromium.launch({ executablePath: defaultChromiumPath(), args: ['--headless', '--no-sandbox', '--disable-gpu'] });
  });

  after(async () => {
    answerAll();
    await browser?.close();
    await site?.close();
  });

  const pendingRequests = (page: Page) =>
    page.evaluate(() => (window as unknown as Record<string, { pendingRequests: number }>).__pagewatchSettle!.pendingRequests);

  // A step's click that fetches is busy in the page the moment its handler
  // runs: the browser's report of the request may come after a loaded machine
  // has already found the page quiet, and the page was then read before the answer.
  for (const [kind, start] of [
    ['fetch', "void fetch('/own/held')"],
    ['XHR', "const x = new XMLHttpRequest(); x.open('GET', '/own/held'); x.send()"],
  ] as const) {
    it(`${kind === 'XHR' ? 'an' : 'a'} ${kind} the page's script starts keeps the page busy until it is answered`, async () => {
      const page = await browser.newPage();
      try {
        const settle = await watchSettle(page);
        await page.goto(`${site.url}/own/page`);
        assert.equal(await pendingRequests(page), 0);
        await page.evaluate(start);
        assert.equal(await pendingRequests(page), 1);
        const settled = settle.settled({ quietMs: QUIET_MS, capAt: Date.now() + 60_000 });
        assert.equal(await firstOf(settled, 200), 'timer', 'quiet while its request was unanswered');
        await waitUntil('the request reached the site', () => held.length === 1);
        answerAll();
        await settled;
        assert.equal(await pendingRequests(page), 0);
      } finally {
        await page.close();
      }
    });
  }
});
