import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { bearer, createAccountWithToken, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.ts';
import { signal } from '../helpers/signal.ts';

// One browser page at a time and no room to wait: a second browser preview
// while the first loads (or runs its steps) gets 503 renderer_busy with
// Retry-After, and pays nothing.
let t: TestApp;
let site: FixtureServer;
// The slow page answers when the test lets it, and says when Chromium asked for it.
const reached = signal();
const release = signal();
// A page whose step waits on a request the test answers when it lets it.
const stepReached = signal();
const stepRelease = signal();
before(async () => {
  t = await startTestApp({ loaders: { maxBrowserPages: 1, browserPreviewsWaiting: 0 } });
  site = await startFixtureServer({
    '/slow': async (_req, res) => {
      reached.resolve();
      await release.promise;
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html><head><title>slow</title></head><body><h1 id="t">slow page</h1></body></html>');
    },
    '/stepped': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<html><head><title>stepped</title></head><body><button id="go">Go</button><p id="out"></p>
        <script>document.getElementById('go').addEventListener('click', async () => {
          document.getElementById('out').textContent = await (await fetch('/held')).text();
        });</script></body></html>`);
    },
    '/held': async (_req, res) => {
      stepReached.resolve();
      await stepRelease.promise;
      res.writeHead(200, { 'content-type': 'text/plain' }).end('done');
    },
  });
});
after(async () => {
  await t.close();
  await site.close();
});

const preview = (token: string) =>
  t.app.inject({
    method: 'POST',
    url: '/api/v1/previews',
    headers: { ...bearer(token), 'content-type': 'application/json' },
    payload: { url: `${site.url}/slow`, load_mode: 'browser' },
  });

test('a full renderer answers 503 renderer_busy with Retry-After and refunds the preview credit', async () => {
  const first = await createAccountWithToken(t.app);
  const second = await createAccountWithToken(t.app);
  const slow = preview(first.token);
  await reached.promise;
  const busy = await preview(second.token);
  release.resolve();
  assert.equal(busy.statusCode, 503);
  assert.equal(busy.json().error.code, 'renderer_busy');
  assert.ok(Number(busy.headers['retry-after']) > 0);
  assert.equal((await slow).statusCode, 201);
  const usage = await t.app.inject({ method: 'GET', url: '/api/v1/usage', headers: bearer(second.token) });
  assert.equal(usage.json().data.previews.day.used, 0);
  const retry = await preview(second.token);
  assert.equal(retry.statusCode, 201, 'the refunded credit also cleared the 35-second spacing');
});

test("a preview's steps hold the renderer slot: another preview while they run is 503 renderer_busy", async () => {
  const first = await createAccountWithToken(t.app);
  const second = await createAccountWithToken(t.app);
  const stepped = t.app.inject({
    method: 'POST',
    url: '/api/v1/previews',
    headers: { ...bearer(first.token), 'content-type': 'application/json' },
    payload: {
      url: `${site.url}/stepped`,
      load_mode: 'browser',
      steps: [
        { action: 'click', selector: '#go' },
        { action: 'wait_for', text: 'done', timeout_ms: 10000 },
      ],
    },
  });
  await stepReached.promise;
  const busy = await preview(second.token);
  stepRelease.resolve();
  assert.equal(busy.statusCode, 503, busy.body);
  assert.equal(busy.json().error.code, 'renderer_busy');
  const answer = await stepped;
  assert.equal(answer.statusCode, 201, answer.body);
  assert.deepEqual(
    answer.json().data.steps.map((s: { ok: boolean }) => s.ok),
    [true, true],
  );
});
