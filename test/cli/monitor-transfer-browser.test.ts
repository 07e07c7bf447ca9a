import { mock, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { exportCommand, importCommand } from '../../src/cli/monitor-transfer-command.ts';
import { useMonitoringWorld, type MonitoringWorld } from '../helpers/monitoring-world.ts';
import { postMonitor } from '../helpers/monitor-api.ts';
import { routeStepSites, type StepSiteState } from '../helpers/step-sites.ts';
import { bearer, createAccountWithToken } from '../helpers/test-app.ts';

// A browser monitor's steps travel with the export: the import previews the
// page with the same steps in real Chromium (the API creates a monitor only
// from a preview loaded as its checks will be), then creates it with them.

let w: MonitoringWorld;
const state: StepSiteState = { price: '€19.99', password: 'unused', portalPrice: '€1.00', otherOrigin: '', acceptId: 'accept' };
useMonitoringWorld({ plans: { pro: { preview_spacing_seconds: 0 } } }, (world) => {
  w = world;
  state.otherOrigin = `http://127.0.0.2:${w.site.port}`;
  routeStepSites(w.site, state);
});

const PRICE = { id: 'price', kind: 'price', selection: { scope: 'selector', selector: '#price' }, currency: 'EUR', rule: 'changed' };
const STEPS = [{ action: 'click', selector: '#accept' }];

async function quietly(run: () => Promise<number>): Promise<{ code: number; stdout: string }> {
  const log = mock.method(console, 'log', () => {});
  const error = mock.method(console, 'error', () => {});
  try {
    const code = await run();
    return { code, stdout: log.mock.calls.map((c) => c.arguments.join(' ')).join('\n') };
  } finally {
    log.mock.restore();
    error.mock.restore();
  }
}

async function monitorsOf(token: string) {
  const res = await w.t.app.inject({ method: 'GET', url: '/api/v1/monitors', headers: bearer(token) });
  return (res.json().data as { url: string; load_mode: string; steps: unknown; targets: { id: string }[] }[]).map((m) => ({
    url: m.url,
    load_mode: m.load_mode,
    steps: m.steps,
    targets: m.targets.map((t) => t.id),
  }));
}

test('a browser monitor with steps is imported with the same steps, previewed with them in Chromium', async () => {
  await w.t.app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(w.t.app.server.address() as AddressInfo).port}`;
  const from = await createAccountWithToken(w.t.app);
  const to = await createAccountWithToken(w.t.app);
  const url = `${w.site.url}/cookie-wall`;
  const previewed = await w.t.app.inject({
    method: 'POST',
    url: '/api/v1/previews',
    headers: { ...bearer(from.token), 'content-type': 'application/json' },
    payload: { url, load_mode: 'browser', steps: STEPS },
  });
  assert.equal(previewed.statusCode, 201, previewed.body);
  const created = await postMonitor(w.t.app, from.token, {
    preview_id: previewed.json().data.id,
    targets: [PRICE],
    steps: STEPS,
    interval_minutes: 15,
  });
  assert.equal(created.statusCode, 201, created.body);
  const file = join(mkdtempSync(join(tmpdir(), 'pw-transfer-steps-')), 'export.json');
  assert.equal((await quietly(() => exportCommand(file, { base, token: from.token }))).code, 0);
  assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')).monitors[0].steps, STEPS);
  const imported = await quietly(() => importCommand(file, { base, token: to.token }));
  assert.equal(imported.code, 0, imported.stdout);
  assert.deepEqual(await monitorsOf(to.token), [{ url, load_mode: 'browser', steps: STEPS, targets: ['price'] }]);
});
