import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { bearer, createAccountWithToken, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { insertPreview } from '../../src/store/previews-store.ts';
import type { JobTicket } from '../../src/domain/fair-queue.ts';

// Interactive extractions queue fairly and within bounds (DESIGN "Work
// queues"): past its account's bound an evaluate is 503 busy with
// Retry-After while other accounts are still served, and an evaluate whose
// client disconnects leaves the queue. The extraction threads here block for
// as many milliseconds as a page says, so a test controls who holds a thread.

const SLOW_WORKER = new URL('../helpers/slow-extraction-worker.mjs', import.meta.url);
const TARGETS = [{ id: 't', kind: 'text', selection: { scope: 'page' } }];

let t: TestApp;
const held: Promise<unknown>[] = [];
before(async () => {
  t = await startTestApp({
    env: { PAGEWATCH_EXTRACT_WORKERS: '2' },
    loaders: { extractionWorkerUrl: SLOW_WORKER, extractionsPerAccount: 1, extractionBudgetMs: 20_000 },
  });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
});
after(async () => {
  await t.close();
  await Promise.allSettled(held);
});

/** A preview of the account whose page keeps an extraction thread busy `ms` milliseconds. */
async function previewOf(accountId: string, ms: number): Promise<string> {
  const id = randomUUID();
  const now = t.clock.now();
  await insertPreview(t.db, {
    id,
    account_id: accountId,
    url: 'https://shop.example/',
    final_url: 'https://shop.example/',
    load_mode: 'html',
    title: null,
    html: String(ms),
    format: 'html',
    body: null,
    elements: [],
    steps: [],
    step_failed: false,
    step_outcomes: [],
    created_at: now,
    expires_at: new Date(now.getTime() + 15 * 60_000),
  });
  return id;
}

/** Holds an extraction slot for `account` with a job of `ms` milliseconds, answered or failed by close(). */
function hold(account: string, ms: number): void {
  const ticket: JobTicket = { account, lane: 'interactive' };
  held.push(t.loaders.extraction.targets(String(ms), 'http://x/', [], ticket).catch(() => undefined));
}

function evaluate(token: string, previewId: string) {
  return t.app.inject({
    method: 'POST',
    url: `/api/v1/previews/${previewId}/evaluate`,
    headers: { ...bearer(token), 'content-type': 'application/json' },
    payload: { targets: TARGETS },
  });
}

async function metric(pattern: RegExp): Promise<number> {
  const res = await t.app.inject({ method: 'GET', url: '/metrics' });
  return Number(pattern.exec(res.body)?.[1] ?? 0);
}

async function waitFor(condition: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const WAITING = /pagewatch_work_queue_depth\{queue="extraction",kind="targets",lane="interactive"\} (\d+)/;
const SENT = /pagewatch_work_queue_wait_seconds_count\{queue="extraction",kind="targets",lane="interactive"\} (\d+)/;

test("past its account's bound an evaluate is 503 busy with Retry-After, while another account's is answered", async () => {
  const busy = await createAccountWithToken(t.app);
  const other = await createAccountWithToken(t.app);
  hold(busy.accountId, 5_000);
  const refused = await evaluate(busy.token, await previewOf(busy.accountId, 1));
  assert.equal(refused.statusCode, 503, refused.body);
  assert.equal(refused.json().error.code, 'busy');
  assert.equal(refused.headers['retry-after'], '20');
  const answered = await evaluate(other.token, await previewOf(other.accountId, 1));
  assert.equal(answered.statusCode, 200, answered.body);
});

test('an evaluate whose client disconnects is dropped from the queue and never extracted', async () => {
  const waiting = await createAccountWithToken(t.app);
  // Interactive work has one of the two threads: another account's job holds it.
  hold('another-account', 10_000);
  await waitFor(async () => (await metric(WAITING)) === 0);
  const sentBefore = await metric(SENT);
  const previewId = await previewOf(waiting.accountId, 1);
  const address = t.app.server.address() as AddressInfo;
  const req = httpRequest({
    host: '127.0.0.1',
    port: address.port,
    method: 'POST',
    path: `/api/v1/previews/${previewId}/evaluate`,
    headers: { ...bearer(waiting.token), 'content-type': 'application/json' },
  });
  req.on('error', () => undefined);
  req.end(JSON.stringify({ targets: TARGETS }));
  await waitFor(async () => (await metric(WAITING)) === 1);
  req.destroy();
  await waitFor(async () => (await metric(WAITING)) === 0);
  assert.equal(await metric(SENT), sentBefore, 'no job was sent to a thread after the one holding it');
});
