// test-process: own (it reads the command line of the Chromium below its process, which another file's browser could be)
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { PLAYWRIGHT_DISABLED_FEATURES, chromiumArgs } from '../../../src/fetch/browser/chromium.ts';
import { defaultChromiumPath } from '../../../src/config.ts';

// The launch flags against real Chromium launched by Playwright.

/** the command line of the browser process this process launched (Playwright starts it as a direct child) */
function launchedBrowserArgs(): string[] {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const ppid = Number(/PPid:\s+(\d+)/.exec(readFileSync(`/proc/${entry}/status`, 'utf8'))?.[1]);
      const args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (ppid === process.pid && args.includes('--remote-debugging-pipe')) return args;
    } catch {
      // the process ended while we looked
    }
  }
  throw new Error('no browser process found');
}

const disabledFeatures = (args: string[]): string[] =>
  args
    .filter((arg) => arg.startsWith('--disable-features='))
    .at(-1)!
    .slice('--disable-features='.length)
    .split(',');

describe('chromium launch flags', () => {
  it('keeps every feature Playwright turns off, as Chromium reads only the last --disable-features', async () => {
    const browser = await chromium.launch({ executablePath: defaultChromiumPath(), headless: true });
    try {
      assert.deepEqual(disabledFeatures(launchedBrowserArgs()).sort(), [...PLAYWRIGHT_DISABLED_FEATURES].sort());
    } finally {
      await browser.close();
    }
    const ours = disabledFeatures(chromiumArgs('http://127.0.0.1:3128', 2));
    for (const feature of PLAYWRIGHT_DISABLED_FEATURES) assert.ok(ours.includes(feature), `${feature} is not turned off`);
  });
});
