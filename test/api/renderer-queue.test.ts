import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { bearer, createAccountWithToken, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.ts';

// Browser previews wait their turn for the renderer's page; past an account's
// bound (2 waiting or rendering) a preview is 503 renderer_busy with
// Retry-After and costs no credit. Real Chromium, one page.
let t: TestApp;
let site: FixtureServer;
const waiting: ServerResponse[] = [];

before(async () => {
  t = await startTestApp({
    loaders: { maxBrowserPages: 1 },
    plans: { pro: { preview_spacing_seconds: 0 } },
  });
  site = await startFixtureServer();
  for (const name of ['a1', 'a2', 'a3', 'b1']) site.route(`/${name}`, (_req, res) => void waiting.push(res));
});
after(async () => {
  for (const res of waiting) res.end();
  await t.close();
  await site.close();
});

const preview = (token: string, name: string) =>
  t.app.inject({
    method: 'POST',
    url: '/api/v1/previews',
    headers: { ...bearer(token), 'content-type': 'application/json' },
    payload: { url: `${site.url}/${name}`, load_mode: 'browser' },
  });

const WAITING = /pagewatch_work_queue_depth\{queue="browser",kind="page",lane="interactive"\} (\d+)/;

/** Waits until `count` browser previews wait for the page. */
async function untilWaiting(count: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Number(WAITING.exec(await t.metrics.registry.metrics())?.[1] ?? 0) !== count) {
    assert.ok(Date.now() < deadline, `${count} previews never waited`);
    await sleep(10);
  }
}

/** Answers the page the renderer is loading, once it has asked for it. */
async function answerNext(title: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (waiting.length === 0) {
    assert.ok(Date.now() < deadline, 'no page was requested');
    await sleep(10);
  }
  waiting.shift()!.writeHead(200, { 'content-type': 'text/html' }).end(`<html><body><h1>${title}</h1></body></html>`);
}

test("a browser preview waits for the page another account's preview holds, and past its account's bound one is 503 renderer_busy", async () => {
  const a = await createAccountWithToken(t.app);
  const b = await createAccountWithToken(t.app);
  const a1 = preview(a.token, 'a1');
  while (waiting.length === 0) await sleep(10);
  const a2 = preview(a.token, 'a2');
  await untilWaiting(1);
  const b1 = preview(b.token, 'b1');
  await untilWaiting(2);
  const refused = await preview(a.token, 'a3');
  assert.equal(refused.statusCode, 503, refused.body);
  assert.equal(refused.json().error.code, 'renderer_busy');
  assert.equal(refused.headers['retry-after'], '60');
  await answerNext('a1');
  await answerNext('a2');
  await answerNext('b1');
  for (const res of await Promise.all([a1, a2, b1])) assert.equal(res.statusCode, 201, res.body);
  const usage = await t.app.inject({ method: 'GET', url: '/api/v1/usage', headers: bearer(a.token) });
  assert.equal(usage.json().data.previews.day.used, 2, 'the refused preview cost no credit');
});
