import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startBrowserDashboard, type BrowserDashboard } from '../../helpers/browser-dashboard.ts';
import { insertMonitorRow } from '../../helpers/monitor-rows.ts';
import { TITLE, watchPage } from '../../helpers/watched-page.ts';

// The monitor list and a monitor's page in Chromium at one window width (one
// test file per width): the failing filter, the navigation while editing, the
// watched address as a link, the latest checks.

export function monitorPageScenarios(width: number): void {
  let world: BrowserDashboard;
  before(async () => {
    world = await startBrowserDashboard('monitor-page');
  });
  after(() => world?.close());

  test(`${width} px: /?failing=1 lists only the monitors whose checks are failing`, async () => {
    const { accountId, email } = await world.newOwner();
    const row = (url: string) => insertMonitorRow(world.t.db, { accountId, url, targets: [TITLE], nextCheckAt: world.t.clock.now() });
    const failing = await row('https://shop.example/failing');
    await row('https://shop.example/fine');
    await world.t.db.query('UPDATE check_state SET failing_since = now(), consecutive_failures = 3 WHERE monitor_id = $1', [failing]);
    const page = await world.pageAs(email, width);
    await page.goto('/?failing=1');
    await world.shot(page, `${width}-failing-only`);
    assert.deepEqual(await page.locator('td.url-cell a').allInnerTexts(), ['https://shop.example/failing']);
    assert.equal(await page.getByLabel('Failing only').isChecked(), true);
    await page.context().close();
  });

  test(`${width} px: while a monitor's targets are changed the navigation marks "Monitors", not "New monitor"`, async () => {
    const { accountId, email } = await world.newOwner();
    const monitorId = await insertMonitorRow(world.t.db, {
      accountId,
      url: `${world.site.url}/shop/espresso.html`,
      targets: [TITLE],
      nextCheckAt: world.t.clock.now(),
    });
    const page = await world.pageAs(email, width);
    const current = () => page.locator('nav a[aria-current="page"]').allInnerTexts();
    await page.goto(`/monitors/${monitorId}/edit`);
    await page.getByRole('button', { name: 'Load a fresh preview' }).click();
    await page.waitForURL(/\/monitors\/new\/[0-9a-f-]{36}\?monitor=/);
    assert.deepEqual(await current(), ['Monitors']);
    await page.getByRole('button', { name: 'Evaluate targets' }).click();
    await page.getByRole('heading', { name: 'Evaluated values' }).waitFor();
    await world.shot(page, `${width}-editing-nav`);
    assert.deepEqual(await current(), ['Monitors'], 'after evaluating too');
    await page.context().close();
  });

  test(`${width} px: the monitored address is a link to the page that sends no referrer`, async () => {
    const { accountId, email } = await world.newOwner();
    const url = `${world.site.url}/shop/espresso.html`;
    const monitorId = await insertMonitorRow(world.t.db, { accountId, url, targets: [TITLE], nextCheckAt: world.t.clock.now() });
    const page = await world.pageAs(email, width);
    await page.goto(`/monitors/${monitorId}`);
    const link = page.getByRole('link', { name: url });
    assert.equal(await link.getAttribute('href'), url);
    assert.equal(await link.getAttribute('rel'), 'noopener noreferrer');
    await page.context().close();
  });

  test(`${width} px: the monitor page lists its latest checks, newest first`, async () => {
    const { accountId, email } = await world.newOwner();
    const watched = await watchPage(world.t, world.site, world.engine, { accountId, targets: [{ ...TITLE, label: 'Title' }] });
    await watched.check();
    await watched.check({ title: 'Espresso Duo (new model)' });
    await watched.check({ note: 'Closed on Sunday' });
    const page = await world.pageAs(email, width);
    await page.goto(`/monitors/${watched.monitorId}`);
    await world.shot(page, `${width}-latest-checks`);
    const rows = page.locator('table[class="cards"]:has(caption:text("Latest checks")) tbody tr');
    assert.equal(await rows.count(), 3);
    assert.match(await rows.nth(1).innerText(), /1 change/);
    const times = await rows.locator('time').evaluateAll((els) => els.map((e) => e.getAttribute('datetime') ?? ''));
    assert.deepEqual(times, [...times].sort().reverse(), 'newest first');
    await page.context().close();
  });
}
