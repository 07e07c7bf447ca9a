import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Target } from '../../../src/domain/targets.ts';
import type { SteppedEngine } from '../../../src/engine/scheduler.ts';
import { createAccountWithToken, type TestApp } from '../../helpers/test-app.ts';
import type { FixtureServer } from '../../helpers/fixture-server.ts';
import { useMonitoringWorld } from '../../helpers/monitoring-world.ts';
import { updateMonitorRow } from '../../helpers/monitor-rows.ts';
import { TITLE, watchPage } from '../../helpers/watched-page.ts';

// A baseline row is written only when something in it changes, so its
// updated_at (shown on the dashboard as "since") is when it last changed.

let t: TestApp, site: FixtureServer, engine: SteppedEngine;
useMonitoringWorld({}, (w) => ({ t, site, engine } = w));

interface StoredBaseline {
  target_id: string;
  value: unknown;
  text_hash: string | null;
  updated_at: Date;
}

const PRICE: Target = {
  id: 'price',
  kind: 'price',
  selection: { scope: 'selector', selector: '#price' },
  currency: 'EUR',
  rule: 'changed',
};

async function watch(targets: Target[]) {
  const { accountId } = await createAccountWithToken(t.app);
  const page = await watchPage(t, site, engine, { accountId, targets });
  const baselines = async () =>
    new Map(
      (
        await t.db.query<StoredBaseline>('SELECT target_id, value, text_hash, updated_at FROM baselines WHERE monitor_id = $1', [
          page.monitorId,
        ])
      ).map((b) => [b.target_id, b]),
    );
  return { ...page, baselines };
}

test('an unchanged capture leaves the baseline row untouched; a change moves it', async () => {
  const m = await watch([TITLE]);
  await m.check();
  const seeded = (await m.baselines()).get('title')!;
  assert.equal(seeded.updated_at.getTime(), t.clock.now().getTime(), 'seeded at the first capture');
  await m.check();
  await m.check();
  assert.ok(t.clock.now() > seeded.updated_at, 'the clock moved on between checks');
  assert.deepEqual((await m.baselines()).get('title'), seeded, 'unchanged captures do not rewrite it');
  await m.check({ title: 'Espresso Trio' });
  const moved = (await m.baselines()).get('title')!;
  assert.equal(moved.value, 'Espresso Trio');
  assert.equal(moved.updated_at.getTime(), t.clock.now().getTime());
});

test('a capture with the same value but another captured text rewrites the baseline', async () => {
  const m = await watch([PRICE]);
  await m.check({ price: '€29.00' });
  const first = (await m.baselines()).get('price')!;
  await m.check({ price: '€ 29.00' });
  const second = (await m.baselines()).get('price')!;
  assert.equal(second.value, first.value, 'the same price');
  assert.notEqual(second.text_hash, first.text_hash, 'the text the next change is diffed from is the latest one');
  assert.equal(second.updated_at.getTime(), t.clock.now().getTime());
});

test('the baseline of a removed target is deleted at the next check, the others stay as they are', async () => {
  const m = await watch([TITLE, PRICE]);
  await m.check();
  const before = await m.baselines();
  assert.deepEqual([...before.keys()].sort(), ['price', 'title']);
  await updateMonitorRow(t.db, m.monitorId, { targets: [TITLE] });
  await m.check();
  const afterRemoval = await m.baselines();
  assert.deepEqual([...afterRemoval.keys()], ['title']);
  assert.deepEqual(afterRemoval.get('title'), before.get('title'));
});
