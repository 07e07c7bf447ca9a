import assert from 'node:assert/strict';
import type { Target } from '../../src/domain/targets.ts';
import type { SteppedEngine } from '../../src/engine/scheduler.ts';
import type { FixtureServer } from './fixture-server.ts';
import type { TestApp } from './test-app.ts';
import { watchPage } from './watched-page.ts';

// A change between two captured texts of about `bytes` each that differ on
// every other line: the costliest diff a page can ask for (recorded by the
// engine as any change is).

const NOTE: Target = { id: 'note', kind: 'text', selection: { scope: 'selector', selector: '#note' }, rule: 'changed' };

export async function recordLargeTextChange(t: TestApp, site: FixtureServer, engine: SteppedEngine, accountId: string, bytes: number) {
  const lines = Array.from({ length: Math.ceil(bytes / 48) }, (_, i) => `Lorem ipsum dolor sit amet, consectetur ${i}.`);
  const changed = lines.map((line, i) => (i % 2 === 0 ? line.toUpperCase() : line));
  const page = await watchPage(t, site, engine, { accountId, targets: [NOTE], initial: { note: lines.join('<br>') } });
  await page.check();
  await page.check({ note: changed.join('<br>') });
  const [change] = await t.db.query<{ id: string }>('SELECT id FROM changes WHERE monitor_id = $1', [page.monitorId]);
  assert.ok(change, 'the change was recorded');
  return change.id;
}
