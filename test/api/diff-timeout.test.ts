import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { bearer, createAccountWithToken, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { insertNotifiedChange, insertNotifyingMonitor } from '../helpers/notification-rows.ts';

// A change read before its diff was stored has the diff computed in the
// extraction threads (services/change-diffs.ts). When the threads cannot
// finish it within the extraction budget, the read is 503 `busy` with
// Retry-After, as a full work queue is (DESIGN §1 Work queues) — never a 500.
// The threads here block for as many milliseconds as the change's "after"
// text says, so the budget runs out whatever the machine's load.

const SLOW_WORKER = new URL('../helpers/slow-extraction-worker.mjs', import.meta.url);

let t: TestApp;
before(async () => {
  t = await startTestApp({ loaders: { extractionWorkerUrl: SLOW_WORKER, extractionBudgetMs: 2_000 } });
});
after(() => t.close());

test('a change whose diff the threads cannot compute within the budget is 503 busy with Retry-After', async () => {
  const { accountId, token } = await createAccountWithToken(t.app);
  const monitorId = await insertNotifyingMonitor(t, { accountId });
  const { changeId } = await insertNotifiedChange(t, { accountId, monitorId, channels: [], texts: { before: '0', after: '60000' } });
  const res = await t.app.inject({ method: 'GET', url: `/api/v1/changes/${changeId}`, headers: bearer(token) });
  assert.equal(res.statusCode, 503, res.body);
  assert.equal(res.json().error.code, 'busy');
  assert.equal(res.headers['retry-after'], '2');
});
