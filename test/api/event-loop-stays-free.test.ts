import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { bearer, createAccountWithToken, type TestApp } from '../helpers/test-app.ts';
import type { FixtureServer } from '../helpers/fixture-server.ts';
import { useMonitoringWorld } from '../helpers/monitoring-world.ts';

// Parsing a large page happens in the extraction threads: while one account's
// preview of a ~4.8 MB page runs, other requests are answered at once.

let t: TestApp, site: FixtureServer;
// A budget far above the parse time, so a busy machine cannot turn this into an extraction_timeout.
useMonitoringWorld({ plans: { pro: { preview_spacing_seconds: 0 } }, loaders: { extractionBudgetMs: 120_000 } }, (w) => ({ t, site } = w));

test('/healthz answers promptly while a preview of a large page is parsed', async () => {
  const big = `<html><body>${Array.from({ length: 85_000 }, (_, i) => `<div><div><div><b class="p">€${i}.99</b></div></div></div>`).join('')}</body></html>`;
  site.route('/large.html', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(big);
  });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  const { token } = await createAccountWithToken(t.app);
  let done = false;
  const preview = fetch(`${base}/api/v1/previews`, {
    method: 'POST',
    headers: { ...bearer(token), 'content-type': 'application/json' },
    body: JSON.stringify({ url: `${site.url}/large.html`, load_mode: 'html' }),
  }).finally(() => (done = true));
  const waits: number[] = [];
  while (!done) {
    const started = performance.now();
    assert.equal((await fetch(`${base}/healthz`)).status, 200);
    waits.push(performance.now() - started);
    await new Promise((r) => setTimeout(r, 20));
  }
  const res = await preview;
  assert.equal(res.status, 201, await res.text());
  assert.ok(waits.length >= 5, `the preview took long enough to probe (${waits.length} probes)`);
  // A generous bound for a shared CI machine: parsed on the event loop, the page held /healthz for seconds.
  assert.ok(Math.max(...waits) < 1000, `slowest /healthz ${Math.max(...waits).toFixed(0)} ms`);
});
