import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bearer, createAccountWithToken, startTestApp } from '../helpers/test-app.ts';
import { startFixtureServer } from '../helpers/fixture-server.ts';
import { loadPreview, postMonitor } from '../helpers/monitor-api.ts';

// The number of targets a monitor may have is the plan's targets_per_monitor,
// on evaluate, create and update alike.

const targets = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    id: `t${i}`,
    kind: 'text',
    selection: { scope: 'selector', selector: '#product-title' },
    rule: 'changed',
  }));

async function world(plans?: unknown) {
  const t = await startTestApp({ plans: { pro: { preview_spacing_seconds: 0, ...(plans as object) } } });
  const site = await startFixtureServer();
  const { token } = await createAccountWithToken(t.app);
  const previewId = await loadPreview(t.app, token, `${site.url}/shop/espresso.html`);
  const evaluate = (n: number) =>
    t.app.inject({
      method: 'POST',
      url: `/api/v1/previews/${previewId}/evaluate`,
      headers: { ...bearer(token), 'content-type': 'application/json' },
      payload: { targets: targets(n) },
    });
  const create = (n: number) => postMonitor(t.app, token, { preview_id: previewId, targets: targets(n), interval_minutes: 60 });
  return { evaluate, create, close: async () => (await t.close(), await site.close()) };
}

test('Pro allows three targets: four are refused with a detail naming the limit', async () => {
  const w = await world();
  try {
    assert.equal((await w.evaluate(3)).statusCode, 200);
    const refused = await w.create(4);
    assert.equal(refused.statusCode, 422);
    assert.equal(refused.json().error.code, 'target_invalid');
    assert.deepEqual(refused.json().error.details, [{ field: 'targets', message: 'a monitor has 1 to 3 targets on this plan, not 4' }]);
  } finally {
    await w.close();
  }
});

test('a plans file raising targets_per_monitor to 5 allows five targets on evaluate and create', async () => {
  const w = await world({ targets_per_monitor: 5 });
  try {
    assert.equal((await w.evaluate(5)).statusCode, 200);
    assert.equal((await w.create(5)).statusCode, 201);
  } finally {
    await w.close();
  }
});

test('a plans file lowering targets_per_monitor to 1 refuses two', async () => {
  const w = await world({ targets_per_monitor: 1 });
  try {
    assert.equal((await w.evaluate(2)).statusCode, 422);
    assert.equal((await w.create(2)).statusCode, 422);
    assert.equal((await w.create(1)).statusCode, 201);
  } finally {
    await w.close();
  }
});
