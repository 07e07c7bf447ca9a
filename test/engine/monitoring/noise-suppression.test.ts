import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Target } from '../../../src/domain/targets.ts';
import type { SteppedEngine } from '../../../src/engine/scheduler.ts';
import { createAccountWithToken, type TestApp } from '../../helpers/test-app.ts';
import type { FixtureServer } from '../../helpers/fixture-server.ts';
import { useMonitoringWorld } from '../../helpers/monitoring-world.ts';
import { nextCheckAt } from '../../helpers/monitor-rows.ts';
import type { ShopState } from '../../helpers/shop-page.ts';
import { watchPage } from '../../helpers/watched-page.ts';

// Noise suppression (README "Noise suppression"): ignore patterns and confirmed changes.

let t: TestApp, site: FixtureServer, engine: SteppedEngine;
useMonitoringWorld({}, (w) => ({ t, site, engine } = w));

async function watch(target: Target, initial: Partial<ShopState> = {}) {
  const { accountId } = await createAccountWithToken(t.app);
  const page = await watchPage(t, site, engine, { accountId, targets: [target], initial });
  const changes = () =>
    t.db.query<{ before_value: unknown; after_value: unknown }>(
      'SELECT before_value, after_value FROM changes WHERE monitor_id = $1 ORDER BY detected_at',
      [page.monitorId],
    );
  return { ...page, changes };
}

const NOTE: Target = { id: 'note', kind: 'text', selection: { scope: 'selector', selector: '#note' }, rule: 'changed' };
const PRICE: Target = {
  id: 'price',
  kind: 'price',
  selection: { scope: 'selector', selector: '#price' },
  currency: 'EUR',
  rule: 'changed',
  confirm: true,
};

test('an ignored timestamp never alerts, while the rest of the text still does', async () => {
  const m = await watch(
    { ...NOTE, ignore: [{ regex: '\\d{2}:\\d{2}:\\d{2}' }, { text: 'Updated' }] },
    { note: 'Sale ends soon. Updated 10:00:01' },
  );
  await m.check();
  await m.check({ note: 'Sale ends soon. Updated 10:05:17' });
  await m.check({ note: 'Sale ends soon.   Updated 11:59:59' });
  assert.deepEqual(await m.changes(), []);
  await m.check({ note: 'Sale is over. Updated 12:00:00' });
  assert.deepEqual(await m.changes(), [{ before_value: 'Sale ends soon.', after_value: 'Sale is over.' }]);
});

test('"x people viewing" ignored by an expression is not a change', async () => {
  const m = await watch(
    { ...NOTE, ignore: [{ regex: '\\d+ people (are )?viewing( this)?' }] },
    { note: 'Espresso Duo — 12 people viewing' },
  );
  await m.check();
  await m.check({ note: 'Espresso Duo — 31 PEOPLE ARE VIEWING THIS' });
  assert.deepEqual(await m.changes(), []);
});

test('links matching an ignore pattern are not reported as new links', async () => {
  const m = await watch(
    {
      id: 'links',
      kind: 'links',
      selection: { scope: 'selector', selector: '#links' },
      rule: 'new_links',
      ignore: [{ regex: 'session=' }],
    },
    { links: ['/a'] },
  );
  await m.check();
  await m.check({ links: ['/a', '/b?session=123'] });
  assert.deepEqual(await m.changes(), []);
  await m.check({ links: ['/a', '/b?session=456', '/c'] });
  assert.equal((await m.changes()).length, 1);
});

test('a confirm target records a change only when the re-check two minutes later still sees it', async () => {
  const m = await watch(PRICE);
  await m.check();
  await m.check({ price: '€25.00' });
  assert.deepEqual(await m.changes(), [], 'the first sighting is not a change');
  const seenAt = t.clock.now().getTime();
  assert.equal((await nextCheckAt(t.db, m.monitorId)).getTime(), seenAt + 120_000, 'the monitor is checked again two minutes later');
  await m.check();
  assert.deepEqual(await m.changes(), [{ before_value: 2900, after_value: 2500 }]);
  assert.ok((await nextCheckAt(t.db, m.monitorId)).getTime() > t.clock.now().getTime() + 120_000, 'then back to its own schedule');
});

test('a change that flips back before confirmation alerts nothing', async () => {
  const m = await watch(PRICE);
  await m.check();
  const seededAt = t.clock.now().toISOString();
  await m.check({ price: '€25.00' });
  await m.check({ price: '€29.00' });
  await m.check();
  await m.check();
  assert.deepEqual(await m.changes(), []);
  const [baseline] = await t.db.query<{ value: unknown; pending_value: unknown; updated_at: Date }>(
    'SELECT value, pending_value, updated_at FROM baselines WHERE monitor_id = $1',
    [m.monitorId],
  );
  assert.deepEqual(
    baseline,
    { value: 2900, pending_value: null, updated_at: new Date(seededAt) },
    'the value and its "since" are as before',
  );
});

test('a value that keeps moving is never confirmed', async () => {
  const m = await watch(PRICE);
  await m.check();
  for (const price of ['€25.00', '€26.00', '€27.00']) await m.check({ price });
  assert.deepEqual(await m.changes(), []);
  await m.check();
  assert.deepEqual(await m.changes(), [{ before_value: 2900, after_value: 2700 }], 'until it holds for one re-check');
});
