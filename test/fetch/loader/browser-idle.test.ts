// test-process: own (it counts the Chromium processes below its process, which another file's browser would add to)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { createBrowserLoader } from '../../../src/fetch/loader/browser-loader.ts';
import { startFixtureServer } from '../../helpers/fixture-server.ts';
import { pageText } from '../../../src/domain/page-source.ts';

// Chromium runs only while browser work exists: real Chromium, the local
// fixture server, and this process's own child processes as the witness.

const policy = { allowPorts: [80, 443], trustedCidrs: ['127.0.0.0/8'] };

/** Chromium processes started by this process (Playwright launches the browser as a direct child), lowest pid first. */
function chromiumChildren(): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const status = readFileSync(`/proc/${entry}/status`, 'utf8');
      if (Number(/PPid:\s+(\d+)/.exec(status)?.[1]) === process.pid && /Name:\s+chrom/i.test(status)) pids.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return pids.sort((a, b) => a - b);
}

async function until(what: string, done: () => boolean, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('a launched Chromium without a load for the idle time is stopped, and the next load starts it again', async () => {
  const site = await startFixtureServer({});
  const loader = createBrowserLoader({ policy, settleMs: 1000, timeoutMs: 20_000, idleStopMs: 500 });
  try {
    assert.deepEqual(chromiumChildren(), [], 'no browser before the first load');
    const first = await loader.load({ url: `${site.url}/js/inserted.html`, mode: 'browser' });
    assert.deepEqual(first.issues, []);
    assert.ok(chromiumChildren().length > 0, 'the browser runs after a load');
    await until('the idle browser to stop', () => chromiumChildren().length === 0);
    const second = await loader.load({ url: `${site.url}/js/inserted.html`, mode: 'browser' });
    assert.deepEqual(second.issues, []);
    assert.match(pageText(second.html ?? ''), /42 widgets in stock/);
  } finally {
    await loader.close();
    await site.close();
  }
});

test('a browser with loads coming within the idle time keeps running between them', async () => {
  const site = await startFixtureServer({});
  const loader = createBrowserLoader({ policy, settleMs: 1000, timeoutMs: 20_000, idleStopMs: 3000 });
  try {
    await loader.load({ url: `${site.url}/js/inserted.html`, mode: 'browser' });
    const browser = chromiumChildren()[0];
    assert.ok(browser);
    for (let i = 0; i < 3; i++) {
      await new Promise((r) => setTimeout(r, 500));
      await loader.load({ url: `${site.url}/js/inserted.html`, mode: 'browser' });
    }
    assert.equal(chromiumChildren()[0], browser, 'the same browser process served every load');
  } finally {
    await loader.close();
    await site.close();
  }
});
