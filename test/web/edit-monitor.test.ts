import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Target } from '../../src/domain/targets.ts';
import { type TestApp } from '../helpers/test-app.ts';
import type { FixtureServer } from '../helpers/fixture-server.ts';
import { useMonitoringWorld } from '../helpers/monitoring-world.ts';
import { insertMonitorRow } from '../helpers/monitor-rows.ts';
import { createOwner, PRICE_SECOND_TARGET_FIELDS, signedIn, type DashboardClient } from '../helpers/dashboard-client.ts';

let t: TestApp, site: FixtureServer;
useMonitoringWorld({}, (w) => ({ t, site } = w));

const NAME: Target = {
  id: 'product',
  label: 'Product',
  kind: 'text',
  selection: { scope: 'selector', selector: '#product-title' },
  rule: 'changed',
};

async function ownerWithMonitor(targets: Target[] = [NAME]): Promise<{ client: DashboardClient; monitorId: string; accountId: string }> {
  const owner = await createOwner(t.app);
  const monitorId = await insertMonitorRow(t.db, {
    accountId: owner.accountId,
    url: `${site.url}/shop/espresso.html?o=${owner.accountId}`,
    targets,
    nextCheckAt: t.clock.now(),
    intervalMinutes: 60,
  });
  return { client: await signedIn(t.app, owner.email), monitorId, accountId: owner.accountId };
}

/** The target form saved for version 1 of the monitor: NAME kept as target "product", the interval, and `more` fields. */
function savedTargetsForm(monitorId: string, interval: string, more: Record<string, string>): Record<string, string> {
  return {
    monitor_id: monitorId,
    expected_version: '1',
    interval,
    action: 'save',
    t1_id: 'product',
    t1_element: 'sel:#product-title',
    t1_label: 'Product',
    t1_kind: 'text',
    t1_rule: 'changed',
    ...more,
  };
}

async function monitorRow(id: string) {
  const rows = await t.db.query<{
    name: string | null;
    labels: string[];
    email_enabled: boolean;
    webhook_enabled: boolean;
    interval_minutes: number;
    targets: Target[];
    config_version: number;
  }>('SELECT * FROM monitors WHERE id = $1', [id]);
  return rows[0]!;
}

test('the edit page saves name, labels and notifications through the monitor service', async () => {
  const { client, monitorId } = await ownerWithMonitor();
  const page = await client.get(`/monitors/${monitorId}/edit`);
  assert.equal(page.statusCode, 200);
  assert.match(page.body, /<h1>Edit monitor<\/h1>/);
  const saved = await client.post(`/monitors/${monitorId}/edit`, {
    name: 'Espresso',
    labels: 'shop, kitchen ,shop,',
    email: 'on',
    webhook: 'on',
  });
  assert.equal(saved.statusCode, 303);
  assert.equal(saved.headers.location, `/monitors/${monitorId}?notice=monitor-saved`);
  const row = await monitorRow(monitorId);
  assert.equal(row.name, 'Espresso');
  assert.deepEqual(row.labels, ['shop', 'kitchen']);
  assert.equal(row.email_enabled, true);
  assert.equal(row.webhook_enabled, true);
  assert.equal(row.config_version, 1, 'metadata changes keep the config version');

  await client.get(`/monitors/${monitorId}/edit`);
  await client.post(`/monitors/${monitorId}/edit`, { name: '', labels: '' });
  const cleared = await monitorRow(monitorId);
  assert.equal(cleared.name, null, 'an empty name removes it');
  assert.deepEqual(cleared.labels, []);
  assert.equal(cleared.email_enabled, false);
});

test('an invalid setting is explained once on the edit page and nothing is saved', async () => {
  const { client, monitorId } = await ownerWithMonitor();
  await client.get(`/monitors/${monitorId}/edit`);
  const res = await client.post(`/monitors/${monitorId}/edit`, { name: 'ok', labels: `${'x'.repeat(51)}, ${'y'.repeat(51)}` });
  assert.equal(res.statusCode, 422);
  const error = /<p class="error" role="alert">([^<]*)<\/p>/.exec(res.body)![1]!;
  assert.equal(error.match(/labels:/g)?.length, 1, error);
  assert.doesNotMatch(error, /pattern|\^/);
  assert.equal((await monitorRow(monitorId)).name, null);
});

test('new targets and interval go through a fresh preview that starts from the current targets', async () => {
  const { client, monitorId } = await ownerWithMonitor();
  await client.get(`/monitors/${monitorId}/edit`);
  const loaded = await client.post(`/monitors/${monitorId}/reconfigure`, { load_mode: 'html' });
  assert.equal(loaded.statusCode, 303, loaded.body.slice(0, 300));
  const location = loaded.headers.location as string;
  assert.match(location, new RegExp(`^/monitors/new/[0-9a-f-]{36}\\?monitor=${monitorId}$`));
  const form = await client.get(location);
  assert.match(form.body, /<h1>Change targets and schedule<\/h1>/);
  assert.match(form.body, /<input type="hidden" name="t1_id" value="product">/);
  assert.match(form.body, /<option value="sel:#product-title"[^>]* selected>/);
  assert.match(form.body, /name="interval" type="number" min="5" max="10080" required value="60"/);
  assert.match(form.body, /name="expected_version" value="1"/);

  const fields = savedTargetsForm(monitorId, '30', PRICE_SECOND_TARGET_FIELDS);
  const previewPath = location.split('?')[0]!;
  const saved = await client.post(previewPath, fields);
  assert.equal(saved.statusCode, 303, saved.body.slice(0, 500));
  assert.equal(saved.headers.location, `/monitors/${monitorId}?notice=monitor-reconfigured`);
  const row = await monitorRow(monitorId);
  assert.equal(row.interval_minutes, 30);
  assert.equal(row.config_version, 2);
  assert.deepEqual(
    row.targets.map((x) => x.id),
    ['product', 't2'],
    'an existing target keeps its id, so its baseline stays',
  );

  const stale = await client.post(previewPath, { ...fields, interval: '45' });
  assert.equal(stale.statusCode, 409);
  assert.match(stale.body, /The monitor was changed elsewhere since this form was opened/);
});

test('deleting asks for confirmation, then removes the monitor', async () => {
  const { client, monitorId } = await ownerWithMonitor();
  const confirm = await client.get(`/monitors/${monitorId}/delete`);
  assert.equal(confirm.statusCode, 200);
  assert.match(confirm.body, /It cannot be undone/);
  assert.equal((await monitorRow(monitorId)).config_version, 1, 'the confirmation page changes nothing');
  const deleted = await client.post(`/monitors/${monitorId}/delete`, {});
  assert.equal(deleted.statusCode, 303);
  assert.equal(deleted.headers.location, '/?notice=monitor-deleted');
  assert.equal(await monitorRow(monitorId), undefined);
  assert.equal((await client.get(`/monitors/${monitorId}/edit`)).statusCode, 404);
});

test("another account's monitor cannot be edited, reconfigured or deleted", async () => {
  const { monitorId } = await ownerWithMonitor();
  const other = await ownerWithMonitor();
  await other.client.get('/');
  for (const [method, path] of [
    ['GET', 'edit'],
    ['POST', 'edit'],
    ['POST', 'reconfigure'],
    ['GET', 'delete'],
    ['POST', 'delete'],
  ] as const) {
    const res =
      method === 'GET'
        ? await other.client.get(`/monitors/${monitorId}/${path}`)
        : await other.client.post(`/monitors/${monitorId}/${path}`, { name: 'x' });
    assert.equal(res.statusCode, 404, `${method} ${path}`);
  }
  assert.ok(await monitorRow(monitorId));
});

test('ignore patterns and confirmation are shown in the target form and kept when targets are saved', async () => {
  const target: Target = { ...NAME, ignore: [{ text: 'Sale' }, { regex: '\\d+ left' }], confirm: true };
  const { client, monitorId } = await ownerWithMonitor([target]);
  await client.get(`/monitors/${monitorId}/edit`);
  const location = (await client.post(`/monitors/${monitorId}/reconfigure`, { load_mode: 'html' })).headers.location as string;
  const form = await client.get(location);
  assert.match(
    form.body,
    /<textarea id="t1_ignore" name="t1_ignore" rows="2" aria-describedby="t1_ignore-help">Sale\n\/\\d\+ left\/<\/textarea>/,
  );
  assert.match(form.body, /<input type="checkbox" id="t1_confirm" name="t1_confirm" checked>/);
  const saved = await client.post(
    location.split('?')[0]!,
    savedTargetsForm(monitorId, '60', { t1_ignore: 'Sale\n/\\d+ left/\n', t1_confirm: 'on', t2_element: '', t3_element: '' }),
  );
  assert.equal(saved.statusCode, 303, saved.body.slice(0, 500));
  const [row] = await t.db.query<{ targets: Target[] }>('SELECT targets FROM monitors WHERE id = $1', [monitorId]);
  assert.deepEqual(row?.targets[0]?.ignore, [{ text: 'Sale' }, { regex: '\\d+ left' }]);
  assert.equal(row?.targets[0]?.confirm, true);
});

test('a failing monitor is marked in the list and on its page, the list filters to failing monitors, and the alert threshold is editable', async () => {
  const { client, monitorId } = await ownerWithMonitor();
  await t.db.query('UPDATE check_state SET failing_since = now(), consecutive_failures = 3 WHERE monitor_id = $1', [monitorId]);
  const list = await client.get('/?failing=true');
  assert.match(list.body, /<span class="state state-failing">failing since <time/);
  assert.equal(list.body.match(/<td class="url-cell">/g)?.length, 1);
  assert.match((await client.get(`/monitors/${monitorId}`)).body, /state-failing/);
  await t.db.query('UPDATE check_state SET failing_since = NULL WHERE monitor_id = $1', [monitorId]);
  assert.match((await client.get('/?failing=true')).body, /No monitor matches these filters/);

  await client.get(`/monitors/${monitorId}/edit`);
  const saved = await client.post(`/monitors/${monitorId}/edit`, { name: 'x', labels: '', email: 'on', failing_after: '5' });
  assert.equal(saved.statusCode, 303);
  assert.equal(((await monitorRow(monitorId)) as unknown as { failing_after: number }).failing_after, 5);
  const refused = await client.post(`/monitors/${monitorId}/edit`, { name: 'x', labels: '', failing_after: '0' });
  assert.equal(refused.statusCode, 422);
  assert.match(refused.body, /failing_after: must be at least 1/);
});

test("a monitor's emails can come in the daily digest, or as the account's settings say", async () => {
  const { client, monitorId } = await ownerWithMonitor();
  const page = await client.get(`/monitors/${monitorId}/edit`);
  assert.match(page.body, /<option value="" selected>As the account’s settings say<\/option>/);
  await client.post(`/monitors/${monitorId}/edit`, { name: '', labels: '', email: 'on', email_mode: 'daily' });
  const mode = async () =>
    (await t.db.query<{ email_mode: string | null }>('SELECT email_mode FROM monitors WHERE id = $1', [monitorId]))[0]!.email_mode;
  assert.equal(await mode(), 'daily');
  assert.match((await client.get(`/monitors/${monitorId}/edit`)).body, /<option value="daily" selected>/);
  await client.post(`/monitors/${monitorId}/edit`, { name: '', labels: '', email: 'on', email_mode: '' });
  assert.equal(await mode(), null);
  const refused = await client.post(`/monitors/${monitorId}/edit`, { name: '', labels: '', email: 'on', email_mode: 'hourly' });
  assert.equal(refused.statusCode, 422);
  assert.equal(await mode(), null);
});
