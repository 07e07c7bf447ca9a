import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { gatedPages } from '../../helpers/gated-page.ts';
import { insertMonitorRow } from '../../helpers/monitor-rows.ts';
import { serveShop } from '../../helpers/shop-page.ts';
import { TITLE } from '../../helpers/watched-page.ts';
import { buildZip } from '../../helpers/zip-builder.ts';
import { overflowsSideways, startBrowserDashboard, WIDTHS, type BrowserDashboard } from '../../helpers/browser-dashboard.ts';

// Export and import in Chromium at a desktop's and a phone's width: one owner
// downloads the monitors from the list, another uploads the file on the Import
// page and watches each monitor arrive (one page held back keeps the import
// going), then imports a changedetection.io backup and reads what was left out.

let world: BrowserDashboard;
before(async () => {
  world = await startBrowserDashboard('monitor-transfer', { plans: { pro: { preview_spacing_seconds: 0 } } });
});
after(() => world?.close());

async function monitorOf(accountId: string, url: string, name: string | null): Promise<void> {
  const id = await insertMonitorRow(world.t.db, {
    accountId,
    url,
    targets: [{ ...TITLE, label: 'title' }],
    nextCheckAt: world.t.clock.now(),
  });
  await world.t.db.query(`UPDATE monitors SET name = $2, labels = '["shop"]'::jsonb WHERE id = $1`, [id, name]);
}

for (const width of WIDTHS) {
  test(`${width} px: an export downloaded from the list is imported on another account's Import page, line by line, and a changedetection.io backup says what it left out`, async () => {
    const source = await world.newOwner();
    const shop = `/transfer-${width}-shop.html`;
    serveShop(world.site, shop);
    const held = `/transfer-${width}-held.html`;
    const gate = gatedPages([world.site], [held]);
    await monitorOf(source.accountId, `${world.site.url}${held}`, 'Held back');
    await monitorOf(source.accountId, `${world.site.url}${shop}`, 'Espresso <Duo>');

    const exporter = await world.pageAs(source.email, width);
    await exporter.goto('/');
    const [download] = await Promise.all([
      exporter.waitForEvent('download'),
      exporter.getByRole('link', { name: 'Export as JSON' }).click(),
    ]);
    assert.match(download.suggestedFilename(), /^pagewatch-monitors-\d{4}-\d\d-\d\d\.json$/);
    const file = readFileSync(await download.path());
    await exporter.context().close();

    const target = await world.newOwner();
    const page = await world.pageAs(target.email, width);
    await page.goto('/');
    await page.getByRole('link', { name: 'Import monitors' }).click();
    await page.waitForURL(/\/monitors\/import$/);
    await world.shot(page, `${width}-import-form`);
    await page.getByLabel('File').setInputFiles({ name: 'monitors.json', mimeType: 'application/json', buffer: file });
    gate.close();
    await page.getByRole('button', { name: 'Import' }).click();
    // Newest first: the shop page is previewed and created while the held page's preview waits.
    await page.locator('li[data-kind="created"]').filter({ hasText: shop }).waitFor();
    assert.equal(await page.getByRole('heading', { name: 'Result' }).count(), 0, 'the result is not there while a preview runs');
    await world.shot(page, `${width}-import-in-progress`);
    gate.open();
    await page.getByRole('heading', { name: 'Result' }).waitFor();
    await world.shot(page, `${width}-import-result`);
    assert.match(await page.getByRole('status').innerText(), /2 created, 0 skipped as watched already, 0 not created/);
    const rows = await world.t.db.query<{ name: string }>('SELECT name FROM monitors WHERE account_id = $1 ORDER BY name', [
      target.accountId,
    ]);
    assert.deepEqual(
      rows.map((r) => r.name),
      ['Espresso <Duo>', 'Held back'],
    );

    await page.getByRole('link', { name: 'Import another file' }).click();
    const watches = {
      watching: {
        'w-1': { url: `${world.site.url}${shop}`, include_filters: ['#title'] },
        'w-2': {
          url: `${world.site.url}/transfer-${width}-new.html`,
          include_filters: ['//h1'],
          notification_urls: ['mailto://me@example.com'],
          browser_steps: [{ operation: 'Click element', selector: '#accept' }],
        },
      },
    };
    serveShop(world.site, `/transfer-${width}-new.html`);
    const archive = buildZip([{ name: 'url-watches.json', content: JSON.stringify(watches) }]);
    await page.getByLabel('File').setInputFiles({ name: 'changedetection-backup.zip', mimeType: 'application/zip', buffer: archive });
    await page.getByRole('button', { name: 'Import' }).click();
    await page.getByRole('heading', { name: 'Result' }).waitFor();
    await world.shot(page, `${width}-changedetection-result`);
    assert.match(await page.getByRole('status').innerText(), /1 created, 1 skipped as watched already, 0 not created/);
    const leftOut = await page.locator('ul.not-carried').innerText();
    assert.doesNotMatch(leftOut, /XPath/, 'an XPath filter is carried over as an XPath target');
    assert.match(leftOut, /1 browser step: not supported/);
    const [created] = await world.t.db.query<{ targets: { selection: unknown }[] }>(
      'SELECT targets FROM monitors WHERE account_id = $1 AND url = $2',
      [target.accountId, `${world.site.url}/transfer-${width}-new.html`],
    );
    assert.deepEqual(
      created!.targets.map((t) => t.selection),
      [{ scope: 'xpath', expression: '//h1' }],
    );
    const { overflows, scrollWidth, culprits } = await overflowsSideways(page);
    assert.equal(overflows, false, `${scrollWidth} px wide: ${culprits.join(', ')}`);
    await page.context().close();
  });
}
