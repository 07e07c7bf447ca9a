import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Target } from '../../../src/domain/targets.ts';
import type { SteppedEngine } from '../../../src/engine/scheduler.ts';
import { createAccountWithToken, type TestApp } from '../../helpers/test-app.ts';
import type { FixtureServer } from '../../helpers/fixture-server.ts';
import { useMonitoringWorld } from '../../helpers/monitoring-world.ts';
import { updateMonitorRow } from '../../helpers/monitor-rows.ts';
import type { ShopState } from '../../helpers/shop-page.ts';
import { watchPage } from '../../helpers/watched-page.ts';

let t: TestApp, site: FixtureServer, engine: SteppedEngine;
useMonitoringWorld({}, (w) => ({ t, site, engine } = w));

interface ChangeRecord {
  id: string;
  target_id: string;
  rule_matches: unknown;
  before_value: unknown;
  after_value: unknown;
  before_text_hash: string | null;
  after_text_hash: string | null;
}

interface CheckStateRecord {
  last_issues: { code: string; target_id: string | null }[];
  last_checked_at: Date;
  last_change_at: Date | null;
}

/** A monitor of a fresh shop page with one target, and readers of what the engine recorded for it. */
async function watch(target: Target, initial: Partial<ShopState> = {}, flags: { emailEnabled?: boolean; webhookEnabled?: boolean } = {}) {
  const { accountId } = await createAccountWithToken(t.app);
  const page = await watchPage(t, site, engine, { accountId, targets: [target], initial, ...flags });
  const changes = () => t.db.query<ChangeRecord>('SELECT * FROM changes WHERE monitor_id = $1 ORDER BY detected_at, id', [page.monitorId]);
  const monitor = async () => {
    const [row] = await t.db.query<CheckStateRecord>('SELECT * FROM check_state WHERE monitor_id = $1', [page.monitorId]);
    assert.ok(row, 'the monitor has a check state');
    return row;
  };
  return { ...page, changes, monitor };
}

const RULE = (target_id: string, rule: string) => [{ target_id, rule }];

test('the first capture seeds the baseline without a change or an alert', async () => {
  const m = await watch(
    { id: 'title', kind: 'text', selection: { scope: 'selector', selector: '#title' }, rule: 'changed' },
    {},
    { emailEnabled: true },
  );
  await m.check();
  assert.equal((await m.changes()).length, 0);
  const baseline = await t.db.query<{ value: unknown }>('SELECT value FROM baselines WHERE monitor_id = $1', [m.monitorId]);
  assert.deepEqual(
    baseline.map((b) => b.value),
    ['Espresso Duo'],
  );
  const outbox = await t.db.query('SELECT 1 FROM notification_outbox o JOIN changes c ON c.id = o.change_id WHERE c.monitor_id = $1', [
    m.monitorId,
  ]);
  assert.equal(outbox.length, 0);
  const row = await m.monitor();
  assert.ok(row.last_checked_at);
  assert.equal(row.last_change_at, null);
  await m.check();
  assert.equal((await m.changes()).length, 0, 'an unchanged page is no change');
});

test('a text change is recorded with both values and captured texts, and queued for notification', async () => {
  const m = await watch(
    { id: 'title', kind: 'text', selection: { scope: 'selector', selector: '#title' }, rule: 'changed' },
    {},
    { emailEnabled: true, webhookEnabled: true },
  );
  await m.check();
  await m.check({ title: 'Espresso Trio' });
  const [change] = await m.changes();
  assert.ok(change);
  assert.deepEqual(
    [change.before_value, change.after_value, change.rule_matches],
    ['Espresso Duo', 'Espresso Trio', RULE('title', 'changed')],
  );
  const texts = await t.db.query<{ hash: string; content: string }>('SELECT hash, content FROM texts WHERE hash = ANY($1::text[])', [
    [change.before_text_hash, change.after_text_hash],
  ]);
  assert.equal(texts.length, 2);
  const outbox = await t.db.query<{ channel: string }>('SELECT channel FROM notification_outbox WHERE change_id = $1 ORDER BY channel', [
    change.id,
  ]);
  assert.deepEqual(
    outbox.map((o) => o.channel),
    ['email', 'webhook'],
  );
  assert.ok((await m.monitor()).last_change_at);
});

test('price below fires when the price crosses below the threshold, not while it stays below', async () => {
  const m = await watch(
    { id: 'p', kind: 'price', selection: { scope: 'selector', selector: '#price' }, currency: 'EUR', rule: 'below', threshold: '25.00' },
    {},
    { emailEnabled: true },
  );
  await m.check();
  await m.check({ price: '€24.00' });
  await m.check({ price: '€23.00' });
  await m.check({ price: '€26.00' });
  const changes = await m.changes();
  assert.deepEqual(
    changes.map((c) => [c.before_value, c.after_value, c.rule_matches]),
    [
      [2900, 2400, RULE('p', 'below')],
      [2400, 2300, []],
      [2300, 2600, []],
    ],
  );
  const outbox = await t.db.query('SELECT change_id FROM notification_outbox WHERE change_id = ANY($1::uuid[])', [
    changes.map((c) => c.id),
  ]);
  assert.deepEqual(
    outbox.map((o) => o.change_id),
    [changes[0]!.id],
    'only the matching change notifies',
  );
});

test('price dropped fires on every decrease and not on an increase', async () => {
  const m = await watch({ id: 'p', kind: 'price', selection: { scope: 'selector', selector: '#price' }, currency: 'EUR', rule: 'dropped' });
  await m.check();
  await m.check({ price: '€28.00' });
  await m.check({ price: '€30.00' });
  await m.check({ price: '€27.50' });
  assert.deepEqual(
    (await m.changes()).map((c) => c.rule_matches),
    [RULE('p', 'dropped'), [], RULE('p', 'dropped')],
  );
});

test('availability rules fire on the stock transition only', async () => {
  const m = await watch(
    { id: 's', kind: 'availability', selection: { scope: 'selector', selector: '#stock' }, rule: 'available' },
    { stock: 'Out of stock' },
  );
  await m.check();
  await m.check({ stock: 'In stock' });
  await m.check({ stock: 'Out of stock' });
  assert.deepEqual(
    (await m.changes()).map((c) => [c.after_value, c.rule_matches]),
    [
      ['in_stock', RULE('s', 'available')],
      ['out_of_stock', []],
    ],
  );
  const u = await watch({ id: 's', kind: 'availability', selection: { scope: 'selector', selector: '#stock' }, rule: 'unavailable' });
  await u.check();
  await u.check({ stock: 'Out of stock' });
  assert.deepEqual(
    (await u.changes()).map((c) => c.rule_matches),
    [RULE('s', 'unavailable')],
  );
});

test('appears and disappears fire when the phrase comes and goes, not while it stays', async () => {
  const m = await watch({ id: 'n', kind: 'text', selection: { scope: 'selector', selector: '#note' }, rule: 'appears', phrase: 'sale' });
  await m.check();
  await m.check({ note: 'Big SALE today' });
  await m.check({ note: 'Big sale tomorrow' });
  await m.check({ note: 'Welcome' });
  assert.deepEqual(
    (await m.changes()).map((c) => c.rule_matches),
    [RULE('n', 'appears'), [], []],
  );
  const d = await watch({
    id: 'n',
    kind: 'text',
    selection: { scope: 'selector', selector: '#note' },
    rule: 'disappears',
    phrase: 'welcome',
  });
  await d.check();
  await d.check({ note: 'Closed' });
  await d.check({ note: 'Closed today' });
  assert.deepEqual(
    (await d.changes()).map((c) => c.rule_matches),
    [RULE('n', 'disappears'), []],
  );
});

test('new_links fires for links never seen before, not for one that comes back', async () => {
  const m = await watch({ id: 'l', kind: 'links', selection: { scope: 'selector', selector: '#links' }, rule: 'new_links' });
  await m.check();
  await m.check({ links: ['/a', '/b'] });
  await m.check({ links: ['/b'] });
  await m.check({ links: ['/a', '/b'] });
  assert.deepEqual(
    (await m.changes()).map((c) => c.rule_matches),
    [RULE('l', 'new_links'), [], []],
  );
});

test('a target without a rule records rule_matches null and always notifies', async () => {
  const m = await watch({ id: 'title', kind: 'text', selection: { scope: 'selector', selector: '#title' } }, {}, { webhookEnabled: true });
  await m.check();
  await m.check({ title: 'Other' });
  const [change] = await m.changes();
  assert.ok(change);
  assert.equal(change.rule_matches, null);
  const outbox = await t.db.query<{ channel: string }>('SELECT channel FROM notification_outbox WHERE change_id = $1', [change.id]);
  assert.deepEqual(
    outbox.map((o) => o.channel),
    ['webhook'],
  );
});

test('a value that cannot be determined is an issue: no change, and the baseline stays', async () => {
  const m = await watch({ id: 'p', kind: 'price', selection: { scope: 'selector', selector: '#price' }, currency: 'EUR', rule: 'changed' });
  await m.check();
  await m.check({ price: '' });
  assert.deepEqual(
    (await m.monitor()).last_issues.map((i) => [i.target_id, i.code]),
    [['p', 'selector_missing']],
  );
  assert.equal((await m.changes()).length, 0);
  await m.check({ price: '€29.00' });
  assert.equal((await m.changes()).length, 0, 'the price came back unchanged: no invented change');
  assert.deepEqual((await m.monitor()).last_issues, []);
  await m.check({ price: '€19.00' });
  assert.deepEqual(
    (await m.changes()).map((c) => [c.before_value, c.after_value]),
    [[2900, 1900]],
  );
});

test('a target whose selection is edited seeds a new baseline instead of reporting a change', async () => {
  const m = await watch({ id: 't', kind: 'text', selection: { scope: 'selector', selector: '#title' }, rule: 'changed' });
  await m.check();
  await updateMonitorRow(t.db, m.monitorId, {
    targets: [{ id: 't', kind: 'text', selection: { scope: 'selector', selector: '#note' }, rule: 'changed' }],
  });
  await m.check();
  assert.equal((await m.changes()).length, 0);
  const baseline = await t.db.query<{ value: unknown }>('SELECT value FROM baselines WHERE monitor_id = $1', [m.monitorId]);
  assert.deepEqual(
    baseline.map((b) => b.value),
    ['Welcome'],
  );
});
