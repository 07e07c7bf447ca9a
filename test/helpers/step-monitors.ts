import assert from 'node:assert/strict';
import type { MonitoringWorld } from './monitoring-world.ts';
import { bearer, createAccountWithToken } from './test-app.ts';
import { postMonitor } from './monitor-api.ts';
import { checkDueMonitor } from './test-engine.ts';

// A customer's browser-step flow (issue #42) over the API: a preview with
// steps, a monitor made from it with the same steps, and its checks.

/** POST /previews of a path of the world's site with `steps`, the answer as it came. */
export function previewWithSteps(w: MonitoringWorld, token: string, path: string, steps: unknown[], loadMode = 'browser') {
  return w.t.app.inject({
    method: 'POST',
    url: '/api/v1/previews',
    headers: { ...bearer(token), 'content-type': 'application/json' },
    payload: { url: `${w.site.url}${path}`, load_mode: loadMode, steps },
  });
}

/** A new account's monitor of `path` with `steps`, checked once: its preview, its state after the check, and `check` for more. */
export async function watchWithSteps(w: MonitoringWorld, path: string, steps: unknown[], target: object, extra: object = {}) {
  const { token } = await createAccountWithToken(w.t.app);
  const previewed = await previewWithSteps(w, token, path, steps);
  assert.equal(previewed.statusCode, 201, previewed.body);
  const created = await postMonitor(w.t.app, token, {
    preview_id: previewed.json().data.id,
    targets: [target],
    steps,
    interval_minutes: 15,
    ...extra,
  });
  assert.equal(created.statusCode, 201, created.body);
  const monitorId = created.json().data.id as string;
  const check = async () => {
    await checkDueMonitor(w.t, w.engine, monitorId);
    return (await w.t.app.inject({ method: 'GET', url: `/api/v1/monitors/${monitorId}`, headers: bearer(token) })).json().data;
  };
  return { token, monitorId, preview: previewed.json().data, monitor: await check(), check };
}
