import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { SteppedEngine } from '../../../src/engine/scheduler.ts';
import { admin, startTestApp, type TestApp } from '../../helpers/test-app.ts';
import { startFixtureServer, type FixtureServer } from '../../helpers/fixture-server.ts';
import { startTestEngine } from '../../helpers/test-engine.ts';
import { PRICE, TITLE, watchPage } from '../../helpers/watched-page.ts';
import { passwordLink } from '../../helpers/dashboard-client.ts';
import { fullPageShot } from '../../helpers/browser-dashboard.ts';
import { defaultChromiumPath } from '../../../src/config.ts';

// The dashboard in real headless Chromium against a listening server. Every
// address involved is loopback. Screenshots, when asked for, go to test-artifacts/dashboard/.

const ARTIFACTS = new URL('../../../test-artifacts/dashboard/', import.meta.url).pathname;
const PASSWORD = 'browser test password';
const EMAIL = 'browser-owner@example.com';

let t: TestApp;
let site: FixtureServer;
let engine: SteppedEngine;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let base: string;
let accountId: string;

const shot = (name: string) => fullPageShot(page, `${ARTIFACTS}${name}.png`);

before(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  t = await startTestApp();
  site = await startFixtureServer();
  engine = startTestEngine(t);
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  browser = await chromium.launch({
    executablePath: defaultChromiumPath(),
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  context = await browser.newContext({ baseURL: base, viewport: { width: 1200, height: 900 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
  page = await context.newPage();
  accountId = (await admin(t.app, 'POST', '/accounts', { email: EMAIL, plan: 'pro' })).json().data.id;
});

after(async () => {
  await browser?.close();
  await engine.stop();
  await t.close();
  await site.close();
});

test("the owner sets a password from the operator's link and signs in", async () => {
  const link = await passwordLink(t.app, accountId);
  await page.goto(`${base}${new URL(link.url).pathname}${new URL(link.url).search}`);
  await page.getByLabel('New password').fill(PASSWORD);
  await page.getByLabel('Repeat the password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Set password' }).click();
  await page.waitForURL(/\/sign-in\?notice=password-set/);
  await page.getByLabel('Email').fill(EMAIL);
  await page.getByLabel('Password').fill(PASSWORD);
  await shot('01-sign-in');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${base}/`);
  assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Monitors');
  const session = (await context.cookies()).find((c) => c.name === 'pw_session');
  assert.ok(session);
  assert.deepEqual([session.httpOnly, session.sameSite, session.secure], [true, 'Lax', false]);
});

test('a monitor is created from a preview of a local page, and "Check now" shows the receipt', async () => {
  await page.getByRole('link', { name: 'New monitor' }).first().click();
  await page.getByLabel('Page address').fill(`${site.url}/shop/espresso.html`);
  await page.getByRole('button', { name: 'Load preview' }).click();
  await page.waitForURL(/\/monitors\/new\/[0-9a-f-]{36}$/);
  await page.locator('#t1_element').selectOption('sel:#product-title');
  await page.locator('#t1_label').fill('Title');
  await page.locator('#t2_element').selectOption('page');
  await page.locator('#t2_label').fill('Price');
  await page.locator('#t2_kind').selectOption('price');
  assert.equal(await page.locator('#t2_rule optgroup[data-kind="text"]').getAttribute('hidden'), '', 'only price rules are offered');
  await page.locator('#t2_rule').selectOption('dropped');
  await page.locator('#t2_currency').fill('EUR');
  await page.locator('#t2_decimal').selectOption(',');
  await page.getByRole('button', { name: 'Evaluate targets' }).click();
  await page.getByRole('heading', { name: 'Evaluated values' }).waitFor();
  assert.match(await page.locator('#results').innerText(), /Espressomaschine Duo/);
  await shot('02-evaluated-preview');
  await page.getByRole('button', { name: 'Create monitor' }).click();
  await page.waitForURL(/\/monitors\/[0-9a-f-]{36}\?notice=monitor-created/);
  assert.match(await page.locator('main').innerText(), /The monitor is created/);

  await page.getByRole('button', { name: 'Check now' }).click();
  await page.locator('#receipt').waitFor();
  assert.match(await page.locator('#receipt').innerText(), /queued/);
  await engine.runCycle();
  await page.reload();
  assert.match(await page.locator('#receipt').innerText(), /succeeded/);
  assert.match(await page.locator('table').first().innerText(), /Espressomaschine Duo/, 'the current value after the check');
  await shot('03-monitor-checked');
});

test('a token created in the dashboard works against /api/v1 until it is revoked', async () => {
  await page.getByRole('link', { name: 'API access' }).click();
  await page.getByLabel('Name').fill('browser token');
  await page.getByLabel(/^usage:read/).check();
  await page.getByLabel(/^monitors:read/).check();
  await page.getByLabel('30 days').check();
  await page.getByRole('button', { name: 'Create token' }).click();
  const token = await page.locator('#token-value').inputValue();
  assert.match(token, /^pwk_/);
  await page.getByRole('button', { name: 'Copy' }).click();
  await page.getByText('Copied to the clipboard.').waitFor();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), token);
  await shot('04-token-created');

  const usage = await fetch(`${base}/api/v1/usage`, { headers: { authorization: `Bearer ${token}` } });
  assert.equal(usage.status, 200);
  // The browser's own session cookie gets nothing from the API.
  const fromBrowser = await page.evaluate(async () => (await fetch('/api/v1/usage', { credentials: 'include' })).status);
  assert.equal(fromBrowser, 401);

  await page.goto('/api-access');
  await page.getByRole('link', { name: 'Revoke browser token' }).click();
  await shot('05-revoke-confirmation');
  await page.getByRole('button', { name: 'Revoke token' }).click();
  await page.waitForURL(/notice=token-revoked/);
  assert.match(await page.locator('table').innerText(), /revoked/);
  const refused = await fetch(`${base}/api/v1/usage`, { headers: { authorization: `Bearer ${token}` } });
  assert.equal(refused.status, 401);
});

test('a change shows its diff, the price chart and usage bars; the layout fits a phone', async () => {
  const watched = await watchPage(t, site, engine, { accountId, targets: [{ ...TITLE, label: 'Title' }, PRICE] });
  await watched.check();
  await watched.check({ price: '€24.00', title: 'Espresso Duo (new model)' });
  await watched.check({ price: '€26.50' });
  await page.goto(`/monitors/${watched.monitorId}/changes`);
  assert.ok(await page.locator('svg.chart').isVisible());
  assert.equal(await page.locator('svg.chart circle.dot').count(), 3);
  await shot('06-changes-price-chart');
  await page.locator('tr', { hasText: 'Title (text)' }).getByRole('link').click();
  await page.getByRole('heading', { name: 'Title changed' }).waitFor();
  assert.match(await page.locator('pre[aria-label="Line differences"]').innerText(), /\+Espresso Duo \(new model\)/);
  await shot('07-change-diff');

  await page.goto('/usage');
  assert.equal(await page.locator('meter').count(), 12);
  await page.setViewportSize({ width: 375, height: 800 });
  await page.goto('/');
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= 375), 'no horizontal scrolling at phone width');
  await shot('08-monitors-phone');
  await page.setViewportSize({ width: 1200, height: 900 });
});

test('a monitor is edited, given new targets through a fresh preview, found by its label and deleted', async () => {
  t.clock.advance(40_000); // previews are at least 35 s apart
  const watched = await watchPage(t, site, engine, { accountId, targets: [{ ...TITLE, label: 'Title' }] });
  await page.goto(`/monitors/${watched.monitorId}`);
  await page.getByRole('link', { name: 'Edit' }).click();
  await page.getByLabel('Name').fill('Watched shop page');
  await page.getByLabel('Labels').fill('shop, e2e');
  await page.getByLabel('Post to the account').check();
  await shot('10-edit-monitor');
  await page.getByRole('button', { name: 'Save settings' }).click();
  await page.waitForURL(/notice=monitor-saved/);
  assert.match(await page.locator('main').innerText(), /Watched shop page/);

  await page.getByRole('link', { name: 'Edit' }).click();
  await page.getByRole('button', { name: 'Load a fresh preview' }).click();
  await page.waitForURL(/\/monitors\/new\/[0-9a-f-]{36}\?monitor=/);
  assert.equal(await page.locator('#t1_label').inputValue(), 'Title', 'the form starts from the current targets');
  await page.locator('#interval').fill('90');
  await shot('11-reconfigure-from-preview');
  await page.getByRole('button', { name: 'Save targets and schedule' }).click();
  await page.waitForURL(/notice=monitor-reconfigured/);
  assert.match(await page.locator('.facts').innerText(), /every 90 minutes/);

  await page.goto('/?label=e2e');
  assert.equal(await page.locator('td.url-cell').count(), 1);
  assert.match(await page.locator('td.url-cell').innerText(), /Watched shop page/);
  await page.setViewportSize({ width: 375, height: 800 });
  await page.goto(`/monitors/${watched.monitorId}/changes`);
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= 375), 'the changes page fits a phone');
  await shot('12-changes-phone');
  await page.setViewportSize({ width: 1200, height: 900 });

  // A monitor whose checks fail is marked, and the list filters to such monitors.
  await t.db.query('UPDATE check_state SET failing_since = now(), consecutive_failures = 3 WHERE monitor_id = $1', [watched.monitorId]);
  await page.goto('/');
  await page.getByLabel('Failing only').check();
  await page.getByRole('button', { name: 'Filter' }).click();
  await page.waitForURL(/failing=true/);
  assert.equal(await page.locator('td.url-cell').count(), 1);
  assert.match(await page.locator('.state-failing').first().innerText(), /failing since/);
  await shot('14-failing-filter');

  await page.goto(`/monitors/${watched.monitorId}`);
  await page.getByRole('link', { name: 'Delete' }).click();
  await shot('13-delete-confirmation');
  await page.getByRole('button', { name: 'Delete the monitor' }).click();
  await page.waitForURL(/notice=monitor-deleted/);
  assert.equal(await page.locator('td.url-cell', { hasText: 'Watched shop page' }).count(), 0);
});

test('a cross-origin form without the CSRF token is refused; after sign-out the session is gone', async () => {
  site.route('/attack.html', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(
      `<form id="f" method="post" action="${base}/api-access/tokens"><input name="name" value="stolen"><input name="scopes" value="usage:read"><input name="days" value="30"></form><script>document.getElementById('f').submit()</script>`,
    );
  });
  await page.goto(`${site.url}/attack.html`);
  await page.waitForURL(`${base}/api-access/tokens`);
  assert.match(await page.locator('h1').innerText(), /Form expired/);
  const stolen = await t.db.query("SELECT 1 FROM api_tokens WHERE name = 'stolen'");
  assert.equal(stolen.length, 0);

  await page.goto('/');
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.waitForURL(/\/sign-in\?notice=signed-out/);
  await page.goto('/api-access');
  await page.waitForURL(/\/sign-in\?notice=signed-in-required&next=%2Fapi-access/);
  await shot('09-signed-out');
});
