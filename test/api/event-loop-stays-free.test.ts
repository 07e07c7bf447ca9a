import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { bearer, createAccountWithToken, type TestApp } from '../helpers/test-app.ts';
import type { FixtureServer } from '../helpers/fixture-server.ts';
import { useMonitoringWorld } from '../helpers/monitoring-world.ts';
import { extractionJobsSent } from '../helpers/extraction-jobs-sent.ts';

// Parsing a large page happens in the extraction threads: while one account's
// preview of a ~1.1 MB page is parsed, other requests are answered. Decided by
// events, not by the clock: the preview's job was handed to an extraction
// thread (the work queue's metric), and /healthz kept answering between that
// hand-over and the preview's answer.

let t: TestApp, site: FixtureServer;
// A budget far above the parse time, so a busy machine cannot turn this into an extraction_timeout.
useMonitoringWorld({ plans: { pro: { preview_spacing_seconds: 0 } }, loaders: { extractionBudgetMs: 120_000 } }, (w) => ({ t, site } = w));

const previewJobsSentToThreads = () => extractionJobsSent(t, 'preview');

test('/healthz answers while a preview of a large page is parsed in an extraction thread', async () => {
  const big = `<html><body>${Array.from({ length: 20_000 }, (_, i) => `<div><div><div><b class="p">€${i}.99</b></div></div></div>`).join('')}</body></html>`;
  site.route('/large.html', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(big);
  });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  const { token } = await createAccountWithToken(t.app);
  const sentBefore = await previewJobsSentToThreads();
  let done = false;
  const preview = fetch(`${base}/api/v1/previews`, {
    method: 'POST',
    headers: { ...bearer(token), 'content-type': 'application/json' },
    body: JSON.stringify({ url: `${site.url}/large.html`, load_mode: 'html' }),
  }).finally(() => (done = true));
  let answeredWhileParsing = 0;
  while (!done) {
    const inThread = (await previewJobsSentToThreads()) > sentBefore;
    assert.equal((await fetch(`${base}/healthz`)).status, 200);
    if (inThread && !done) answeredWhileParsing += 1;
    await new Promise((r) => setTimeout(r, 20));
  }
  const res = await preview;
  assert.equal(res.status, 201, await res.text());
  assert.equal(await previewJobsSentToThreads(), sentBefore + 1, 'the page was parsed in an extraction thread');
  // Parsed on the event loop, the page would hold every /healthz until the preview answered.
  assert.ok(answeredWhileParsing >= 3, `/healthz answered ${answeredWhileParsing} times while the page was parsed`);
});
