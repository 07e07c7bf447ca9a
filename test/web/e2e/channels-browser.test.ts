import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { overflowsSideways, startBrowserDashboard, WIDTHS, type BrowserDashboard } from '../../helpers/browser-dashboard.ts';
import { insertMonitorRow } from '../../helpers/monitor-rows.ts';
import { startServiceReceivers, type ServiceReceivers } from '../../helpers/service-receivers.ts';

// The Channels page in Chromium at a desktop's and a phone's width: the owner
// reaches it from API access, pastes a channel URL (a wrong one is refused on
// the form), sends a test message and reads the answer, chooses the channel on
// a monitor's edit page, and deletes it; every page fits the window.

let world: BrowserDashboard;
let services: ServiceReceivers;
before(async () => {
  services = await startServiceReceivers();
  world = await startBrowserDashboard('channels', { env: { PAGEWATCH_CHANNEL_HOST_OVERRIDES: services.overrides } });
});
after(async () => {
  await world?.close();
  await services?.close();
});

async function fits(page: Parameters<typeof overflowsSideways>[0]): Promise<void> {
  const { overflows, scrollWidth, culprits } = await overflowsSideways(page);
  assert.equal(overflows, false, `${scrollWidth} px wide: ${culprits.join(', ')}`);
}

for (const width of WIDTHS) {
  test(`${width} px: the owner adds, tests, chooses and deletes a channel, and every page fits the window`, async () => {
    const { accountId, email } = await world.newOwner();
    const monitorId = await insertMonitorRow(world.t.db, {
      accountId,
      url: `${world.site.url}/shop/espresso.html?channels=${width}`,
      targets: [{ id: 'title', kind: 'text', selection: { scope: 'page' }, rule: 'changed' }],
      nextCheckAt: world.t.clock.now(),
    });
    const page = await world.pageAs(email, width);
    await page.goto('/api-access');
    await page.getByRole('link', { name: 'channels' }).click();
    await page.waitForURL(/\/channels$/);

    await page.getByLabel('Name').fill('shop team');
    await page.getByLabel('Channel URL').fill('slack://only-one-part');
    await page.getByRole('button', { name: 'Add channel' }).click();
    await page.getByRole('alert').filter({ hasText: 'slack://TokenA/TokenB/TokenC' }).waitFor();
    await world.shot(page, `${width}-channel-refused`);
    await fits(page);

    await page.getByLabel('Channel URL').fill('tgram://123456:AAHtelegramSecretValue/-100200300');
    await page.getByRole('button', { name: 'Add channel' }).click();
    await page.getByRole('status').filter({ hasText: 'The channel is added' }).waitFor();
    assert.equal(await page.getByText('AAHtelegramSecretValue').count(), 0, 'the secret is not shown');

    await page.getByRole('button', { name: 'Send a test message to shop team' }).click();
    const result = page.locator('#test-result');
    await result.waitFor();
    assert.match(await result.innerText(), /The test message went through \(HTTP 200\)[\s\S]*"ok":true/);
    assert.equal(services.received.at(-1)?.service, 'telegram');
    await world.shot(page, `${width}-channel-tested`);
    await fits(page);

    await page.goto(`/monitors/${monitorId}/edit`);
    await page.getByLabel(/shop team/).check();
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByRole('status').filter({ hasText: 'The settings are saved' }).waitFor();
    const [row] = await world.t.db.query<{ channel_ids: string[] }>('SELECT channel_ids FROM monitors WHERE id = $1', [monitorId]);
    assert.equal(row!.channel_ids.length, 1);
    await page.goto(`/monitors/${monitorId}/edit`);
    assert.equal(await page.getByLabel(/shop team/).isChecked(), true);
    await world.shot(page, `${width}-monitor-channels`);
    await fits(page);

    await page.goto('/channels');
    await page.getByRole('link', { name: 'Delete shop team' }).click();
    await page.waitForURL(/\/channels\/[^/]+\/delete$/);
    await world.shot(page, `${width}-channel-delete`);
    await fits(page);
    await page.getByRole('button', { name: 'Delete the channel' }).click();
    await page.getByRole('status').filter({ hasText: 'The channel is deleted' }).waitFor();
    assert.equal(await page.getByText('shop team').count(), 0);
    await page.context().close();
  });
}
