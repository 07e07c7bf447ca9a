import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import type { Target } from '../../../src/domain/targets.ts';
import { startBrowserDashboard, type BrowserDashboard } from '../../helpers/browser-dashboard.ts';
import { insertMonitorRow } from '../../helpers/monitor-rows.ts';

// The new-monitor and change-targets forms in Chromium at one window width
// (one test file per width): names, the own selector, kinds from hints, the
// fields of the chosen kind, settings at creation and an expired preview.

const PREVIEW_SPACING_MS = 40_000;

export function monitorFormScenarios(width: number): void {
  let world: BrowserDashboard;
  before(async () => {
    world = await startBrowserDashboard('monitor-forms');
  });
  after(() => world?.close());

  /** A new owner's page on a fresh preview of the shop fixture. */
  async function onPreview(): Promise<{ page: Page; accountId: string }> {
    const { accountId, email } = await world.newOwner();
    const page = await world.pageAs(email, width);
    await page.goto('/monitors/new');
    await page.getByLabel('Page address').fill(`${world.site.url}/shop/espresso.html`);
    await page.getByRole('button', { name: 'Load preview' }).click();
    await page.waitForURL(/\/monitors\/new\/[0-9a-f-]{36}$/);
    return { page, accountId };
  }

  const visible = (page: Page, id: string) => page.locator(`#${id}`).isVisible();

  test(`${width} px: the evaluated values are named by the targets' labels, else their ids`, async () => {
    const { accountId, email } = await world.newOwner();
    const targets: Target[] = [
      { id: 'price', kind: 'price', selection: { scope: 'selector', selector: '.price' }, currency: 'EUR', decimal: ',', rule: 'dropped' },
      { id: 'stock', label: 'In stock?', kind: 'availability', selection: { scope: 'selector', selector: '.stock' }, rule: 'available' },
    ];
    const monitorId = await insertMonitorRow(world.t.db, {
      accountId,
      url: `${world.site.url}/shop/espresso.html`,
      targets,
      nextCheckAt: world.t.clock.now(),
    });
    const page = await world.pageAs(email, width);
    await page.goto(`/monitors/${monitorId}/edit`);
    await page.getByRole('button', { name: 'Load a fresh preview' }).click();
    await page.waitForURL(/\/monitors\/new\/[0-9a-f-]{36}\?monitor=/);
    await page.getByRole('button', { name: 'Evaluate targets' }).click();
    await page.getByRole('heading', { name: 'Evaluated values' }).waitFor();
    await world.shot(page, `${width}-evaluated-names`);
    const names = await page.locator('#results tbody tr td:first-child').allInnerTexts();
    assert.deepEqual(names, ['price', 'In stock?']);
    await page.context().close();
  });

  test(`${width} px: a label typed on the new-monitor form names the evaluated value`, async () => {
    const { page } = await onPreview();
    await page.locator('#t1_label').fill('Whole page text');
    await page.getByRole('button', { name: 'Evaluate targets' }).click();
    await page.getByRole('heading', { name: 'Evaluated values' }).waitFor();
    assert.deepEqual(await page.locator('#results tbody tr td:first-child').allInnerTexts(), ['Whole page text']);
    await page.context().close();
  });

  test(`${width} px: a CSS selector of one's own is watched though the preview does not list it`, async () => {
    const { page } = await onPreview();
    const selector = '.variants li:last-child';
    assert.equal(await page.locator(`#t1_element option[value="sel:${selector}"]`).count(), 0, 'the preview does not list it');
    await page.locator('#t1_selector').fill(selector);
    await page.locator('#t1_label').fill('Second colour');
    await page.getByRole('button', { name: 'Evaluate targets' }).click();
    await page.getByRole('heading', { name: 'Evaluated values' }).waitFor();
    assert.match(await page.locator('#results').innerText(), /Silber/);
    await world.shot(page, `${width}-own-selector`);
    await page.getByRole('button', { name: 'Create monitor' }).click();
    await page.waitForURL(/notice=monitor-created/);
    assert.match(await page.locator('table').first().innerText(), /\.variants li:last-child/);
    await page.context().close();
  });

  test(`${width} px: choosing an element marked as a price or an availability sets the kind to match`, async () => {
    const { page } = await onPreview();
    const marked = async (hint: string) => (await page.locator(`#t1_element option[data-hints~="${hint}"]`).first().getAttribute('value'))!;
    await page.locator('#t1_element').selectOption(await marked('price'));
    assert.equal(await page.locator('#t1_kind').inputValue(), 'price');
    await page.locator('#t1_element').selectOption(await marked('availability'));
    assert.equal(await page.locator('#t1_kind').inputValue(), 'availability');
    await page.context().close();
  });

  test(`${width} px: only the chosen kind's fields are shown`, async () => {
    const { page } = await onPreview();
    assert.deepEqual(
      [await visible(page, 't1_phrase'), await visible(page, 't1_currency'), await visible(page, 't1_match')],
      [true, false, false],
      'text',
    );
    await page.locator('#t1_kind').selectOption('price');
    assert.deepEqual(
      [await visible(page, 't1_phrase'), await visible(page, 't1_currency'), await visible(page, 't1_threshold')],
      [false, true, true],
      'price',
    );
    await world.shot(page, `${width}-price-fields`);
    await page.locator('#t1_kind').selectOption('links');
    assert.deepEqual([await visible(page, 't1_currency'), await visible(page, 't1_match')], [false, true], 'links');
    await page.context().close();
  });

  test(`${width} px: labels, the webhook and the failing alert are set when the monitor is created`, async () => {
    const { page } = await onPreview();
    await page.getByLabel('Labels (optional)').fill('shop, coffee');
    await page.getByLabel('Post to the account').check();
    await page.getByLabel('Alert when the checks fail').fill('5');
    await world.shot(page, `${width}-create-settings`);
    await page.getByRole('button', { name: 'Create monitor' }).click();
    await page.waitForURL(/notice=monitor-created/);
    const facts = await page.locator('.facts').innerText();
    assert.match(facts, /shop/);
    assert.match(facts, /coffee/);
    assert.match(facts, /webhook on; failing alert after 5 failed checks/);
    await page.context().close();
  });

  test(`${width} px: a form sent to an expired preview keeps what was typed on a fresh preview`, async () => {
    const { page } = await onPreview();
    await page.locator('#t1_element').selectOption('sel:#product-title');
    await page.locator('#t1_label').fill('Product');
    await page.locator('#t2_selector').fill('#news');
    await page.locator('#name').fill('Espresso machine');
    world.t.clock.advance(16 * 60_000); // previews last 15 minutes
    await page.getByRole('button', { name: 'Evaluate targets' }).click();
    await page.getByRole('heading', { name: 'Preview expired' }).waitFor();
    await world.shot(page, `${width}-preview-expired`);
    world.t.clock.advance(PREVIEW_SPACING_MS);
    await page.getByRole('button', { name: 'Load a fresh preview' }).click();
    await page.getByRole('heading', { name: 'Choose what to watch' }).waitFor();
    assert.deepEqual(
      [
        await page.locator('#t1_element').inputValue(),
        await page.locator('#t1_label').inputValue(),
        await page.locator('#t2_selector').inputValue(),
        await page.locator('#name').inputValue(),
      ],
      ['sel:#product-title', 'Product', '#news', 'Espresso machine'],
    );
    await page.context().close();
  });
}
