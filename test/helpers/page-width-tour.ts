import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import { admin } from './test-app.ts';
import { overflowsSideways, startBrowserDashboard, type BrowserDashboard } from './browser-dashboard.ts';
import { PRICE, TITLE, watchPage } from './watched-page.ts';

// Every dashboard page, visited at one window width: nothing may make the
// page itself scroll sideways (wide tables scroll inside their own box). One
// test file per width, so each stays within the runner's time per file.

export function pageWidthTour(width: number): void {
  let world: BrowserDashboard;
  let email: string;
  let pages: [string, string][];

  before(async () => {
    world = await startBrowserDashboard('page-width');
    const { t, site, engine } = world;
    const owner = await world.newOwner();
    email = owner.email;
    const watched = await watchPage(t, site, engine, {
      accountId: owner.accountId,
      targets: [{ ...TITLE, label: 'Product name' }, PRICE],
      initial: { title: 'Espresso Duo with a rather long product name that a shop would show' },
    });
    await watched.check();
    await watched.check({ price: '€24.00', title: 'Espresso Duo (new model) with a rather long product name' });
    await admin(t.app, 'POST', `/accounts/${owner.accountId}/tokens`, {
      name: 'price sync on the build server',
      scopes: ['monitors:read', 'monitors:write', 'changes:read', 'usage:read', 'checks:write'],
      expires_in_days: 30,
    });
    const [change] = await t.db.query<{ id: string }>('SELECT id FROM changes WHERE monitor_id = $1 LIMIT 1', [watched.monitorId]);
    const [token] = await t.db.query<{ id: string }>('SELECT id FROM api_tokens WHERE account_id = $1', [owner.accountId]);
    pages = [
      ['monitors', '/'],
      ['monitor', `/monitors/${watched.monitorId}`],
      ['edit', `/monitors/${watched.monitorId}/edit`],
      ['delete', `/monitors/${watched.monitorId}/delete`],
      ['changes', `/monitors/${watched.monitorId}/changes`],
      ['change', `/changes/${change!.id}`],
      ['new-monitor', '/monitors/new'],
      ['import', '/monitors/import'],
      ['api-access', '/api-access'],
      ['revoke', `/api-access/tokens/${token!.id}/revoke`],
      ['usage', '/usage'],
    ];
  });
  after(() => world?.close());

  async function assertFits(page: Page, name: string): Promise<void> {
    await world.shot(page, `${width}-${name}`);
    const { overflows, scrollWidth, innerWidth, culprits } = await overflowsSideways(page);
    assert.equal(overflows, false, `${name} at ${width} px is ${scrollWidth} px wide in a ${innerWidth} px window: ${culprits.join(', ')}`);
  }

  test(`every dashboard page fits a ${width} px window without scrolling sideways`, async () => {
    const page = await world.pageAs(email, width);
    for (const [name, path] of pages) {
      await page.goto(path);
      await assertFits(page, name);
    }

    await page.goto('/monitors/new');
    await page.getByLabel('Page address').fill(`${world.site.url}/shop/espresso.html`);
    await page.getByRole('button', { name: 'Load preview' }).click();
    await page.waitForURL(/\/monitors\/new\/[0-9a-f-]{36}$/);
    await assertFits(page, 'choose-what-to-watch');
    await page.getByRole('button', { name: 'Evaluate targets' }).click();
    await page.getByRole('heading', { name: 'Evaluated values' }).waitFor();
    await assertFits(page, 'evaluated');

    await page.goto('/api-access');
    await page.getByLabel('Name').fill('another token');
    await page.getByLabel(/^usage:read/).check();
    await page.getByLabel('30 days').check();
    await page.getByRole('button', { name: 'Create token' }).click();
    await page.locator('#token-value').waitFor();
    await assertFits(page, 'token-created');

    await page.context().clearCookies();
    await page.goto('/sign-in');
    await assertFits(page, 'sign-in');
    await page.context().close();
  });
}
