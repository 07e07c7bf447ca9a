import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SteppedEngine } from '../../../src/engine/scheduler.ts';
import { createAccountWithToken, type TestApp } from '../../helpers/test-app.ts';
import type { FixtureServer } from '../../helpers/fixture-server.ts';
import { useMonitoringWorld } from '../../helpers/monitoring-world.ts';
import { insertMonitorRow } from '../../helpers/monitor-rows.ts';
import { startTestEngine } from '../../helpers/test-engine.ts';
import { TITLE } from '../../helpers/watched-page.ts';

let t: TestApp, site: FixtureServer, engine: SteppedEngine;
useMonitoringWorld({}, (w) => ({ t, site, engine } = w));

const MINUTE = 60_000;

/** `count` monitors of the account, due `minutesAgo` before the clock. */
async function dueMonitors(accountId: string, count: number, minutesAgo: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    ids.push(
      await insertMonitorRow(t.db, {
        accountId,
        url: `${site.url}/shop/espresso.html?claims=${minutesAgo}-${i}`,
        targets: [TITLE],
        nextCheckAt: new Date(t.clock.now().getTime() - minutesAgo * MINUTE),
      }),
    );
  }
  return ids;
}

test('due monitors of accounts without Pro access, however overdue and many, do not keep a claim from due Pro monitors', async () => {
  const free = await createAccountWithToken(t.app, { plan: 'free' });
  await dueMonitors(free.accountId, 40, 30);
  const pro = await createAccountWithToken(t.app);
  const [due] = await dueMonitors(pro.accountId, 1, 1);

  const claimed = await engine.claim();
  assert.deepEqual(
    claimed.map((item) => item.monitorId),
    [due],
  );
  await Promise.all(claimed.map((item) => engine.run(item)));
});

test('monitors being checked, however overdue and many, do not keep a claim from the next due monitor', async () => {
  const { accountId } = await createAccountWithToken(t.app);
  const ids = await dueMonitors(accountId, 26, 10);
  const next = await dueMonitors(accountId, 1, 5);
  // 26 checks under way, more than the 1 × 2 + 16 candidates a one-slot claim looks at.
  const running = await startTestEngine(t, { concurrency: 26, hostConcurrency: 100 }).claim();
  assert.deepEqual(running.map((item) => item.monitorId).sort(), [...ids].sort());
  const claimed = await startTestEngine(t, { concurrency: 1, hostConcurrency: 100 }).claim();
  assert.deepEqual(
    claimed.map((item) => item.monitorId),
    next,
  );
  await Promise.all([...running, ...claimed].map((item) => engine.run(item)));
});
