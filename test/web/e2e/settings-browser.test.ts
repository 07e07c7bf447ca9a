import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { admin } from '../../helpers/test-app.ts';
import { overflowsSideways, startBrowserDashboard, WIDTHS, type BrowserDashboard } from '../../helpers/browser-dashboard.ts';

// The settings page in Chromium at a desktop's and a phone's width: the owner
// reaches it from the navigation and chooses the time zone of alert emails.

let world: BrowserDashboard;
before(async () => {
  world = await startBrowserDashboard('settings');
});
after(() => world?.close());

for (const width of WIDTHS) {
  test(`${width} px: the owner opens Settings from the navigation and saves a time zone, and the page fits the window`, async () => {
    const { accountId, email } = await world.newOwner();
    const page = await world.pageAs(email, width);
    await page.goto('/');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
    await page.waitForURL(/\/settings$/);
    assert.equal(await page.getByLabel('Time zone').inputValue(), 'UTC');
    await page.getByLabel('Time zone').selectOption('America/Sao_Paulo');
    await page.getByRole('button', { name: 'Save time zone' }).click();
    await page.getByRole('status').filter({ hasText: 'The time zone is saved' }).waitFor();
    await world.shot(page, `${width}-time-zone-saved`);
    assert.equal(await page.getByLabel('Time zone').inputValue(), 'America/Sao_Paulo');
    assert.equal((await admin(world.t.app, 'GET', `/accounts/${accountId}`)).json().data.time_zone, 'America/Sao_Paulo');
    const { overflows, scrollWidth, culprits } = await overflowsSideways(page);
    assert.equal(overflows, false, `${scrollWidth} px wide: ${culprits.join(', ')}`);
    await page.context().close();
  });
}
