import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type TestApp } from '../helpers/test-app.ts';
import type { FixtureServer } from '../helpers/fixture-server.ts';
import { useMonitoringWorld } from '../helpers/monitoring-world.ts';
import { createOwner, signedIn } from '../helpers/dashboard-client.ts';

let t: TestApp, site: FixtureServer;
useMonitoringWorld({ plans: { pro: { targets_per_monitor: 5 } } }, (w) => ({ t, site } = w));

test('the target form offers as many targets as the plan allows', async () => {
  const { email } = await createOwner(t.app);
  const client = await signedIn(t.app, email);
  await client.get('/monitors/new');
  const res = await client.post('/monitors/new', { url: `${site.url}/shop/espresso.html`, load_mode: 'html' });
  const page = await client.get(res.headers.location as string);
  assert.equal(page.body.match(/<legend>Target \d/g)?.length, 5);
});
