import { after, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Target } from '../../src/domain/targets.ts';
import type { SteppedEngine } from '../../src/engine/scheduler.ts';
import { bearer, createAccountWithToken, type TestApp } from '../helpers/test-app.ts';
import type { FixtureServer } from '../helpers/fixture-server.ts';
import { useMonitoringWorld } from '../helpers/monitoring-world.ts';
import { watchPage } from '../helpers/watched-page.ts';
import type { ShopState } from '../helpers/shop-page.ts';
import { patchMonitor } from '../helpers/monitor-api.ts';
import { testDispatcher } from '../helpers/notification-rows.ts';
import { startServiceReceivers } from '../helpers/service-receivers.ts';

// What a message says, from a real page through the engine to a service's
// receiver: a stock change in words, a text change as the first lines of its
// diff, and hostile text captured from the page arriving as text, not markup.

const services = await startServiceReceivers();
let t: TestApp, site: FixtureServer, engine: SteppedEngine;
useMonitoringWorld({ env: { PAGEWATCH_CHANNEL_HOST_OVERRIDES: services.overrides } }, (w) => ({ t, site, engine } = w));
after(() => services.close());
beforeEach(() => services.reset());

const STOCK: Target = {
  id: 'stock',
  label: 'Stock',
  kind: 'availability',
  selection: { scope: 'selector', selector: '#stock' },
  rule: 'changed',
};
const NOTE: Target = { id: 'note', label: 'Note', kind: 'text', selection: { scope: 'selector', selector: '#note' }, rule: 'changed' };

/** A Telegram channel's messages for a monitor of `target` whose page goes from `initial` to `changed`. */
async function telegramMessage(target: Target, initial: Partial<ShopState>, changed: Partial<ShopState>): Promise<string> {
  const account = await createAccountWithToken(t.app);
  const made = await t.app.inject({
    method: 'POST',
    url: '/api/v1/channels',
    headers: { ...bearer(account.token), 'content-type': 'application/json' },
    payload: JSON.stringify({ name: 'team', url: 'tgram://123456:AAHtelegramSecret/-100200300' }),
  });
  const page = await watchPage(t, site, engine, { accountId: account.accountId, targets: [target], initial, emailEnabled: false });
  await patchMonitor(t.app, account.token, page.monitorId, { notifications: { channels: [made.json().data.id] } });
  await page.check();
  await page.check(changed);
  await testDispatcher(t).runOnce();
  assert.equal(services.received.length, 1, JSON.stringify(services.received));
  return (services.received[0]!.body as { text: string }).text;
}

test('a stock change says the product is now in stock, with the states before and after', async () => {
  const text = await telegramMessage(STOCK, { stock: 'Out of stock' }, { stock: 'In stock' });
  assert.match(text, /^<b>Stock is now in stock on [^<]+<\/b>\n<pre>Stock: Out of stock → In stock<\/pre>\n<a href="[^"]+">/);
});

test('a text change shows the first lines of its diff under its hunk header, marked - and +', async () => {
  const text = await telegramMessage(NOTE, { note: 'Opening hours: 9 to 5' }, { note: 'Opening hours: 10 to 6' });
  assert.match(text, /<pre>@@ -1,1 \+1,1 @@\n- Opening hours: 9 to 5\n\+ Opening hours: 10 to 6<\/pre>/);
});

test('hostile text captured from the page reaches the service as escaped text: only the message’s own tags are tags', async () => {
  // The page shows the characters literally; the captured text is `<a href="https://evil.example">win</a> & <b>x</b>`.
  const hostile = '&lt;a href="https://evil.example"&gt;win&lt;/a&gt; &amp; &lt;b&gt;x&lt;/b&gt;';
  const text = await telegramMessage(NOTE, { note: 'calm' }, { note: hostile });
  assert.deepEqual(
    [...text.matchAll(/<\/?([a-z]+)[^>]*>/g)].map((m) => m[0].replace(/href="[^"]+"/, 'href')),
    ['<b>', '</b>', '<pre>', '</pre>', '<a href>', '</a>'],
  );
  assert.ok(text.includes('+ &lt;a href=&quot;https://evil.example&quot;&gt;win&lt;/a&gt; &amp; &lt;b&gt;x&lt;/b&gt;'), text);
  assert.ok(!text.includes('evil.example">'), 'no link of the page’s');
});
