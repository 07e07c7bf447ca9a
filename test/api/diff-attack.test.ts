import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import type { SteppedEngine } from '../../src/engine/scheduler.ts';
import { createOwner, signedIn } from '../helpers/dashboard-client.ts';
import { bearer, createAccountWithToken, type TestApp } from '../helpers/test-app.ts';
import type { FixtureServer } from '../helpers/fixture-server.ts';
import { recordLargeTextChange } from '../helpers/large-text-change.ts';
import { useMonitoringWorld } from '../helpers/monitoring-world.ts';

// The attack of issue #36: requests for the diff of a change between two
// ~900 KB texts, many at once, used to compute it on the event loop each time
// and hold /healthz for seconds. Now the diff is computed once, in the
// extraction threads, when the change is recorded, and the request path only
// reads it: what the requests get is what the store holds, while /healthz is
// answered throughout. (bench/diff-attack.bench.ts measures /healthz's latency
// under this load.)

let t: TestApp, site: FixtureServer, engine: SteppedEngine;
useMonitoringWorld({ plans: { pro: { requests_per_minute: 1000 } } }, (w) => ({ t, site, engine } = w));

const PLANTED = { detail: 'too_large', unified: '--- before\n+++ after\n', hunks: [] };

test('a flood of large-diff requests is answered from the store while /healthz stays up', async () => {
  const { accountId, token } = await createAccountWithToken(t.app);
  const changeId = await recordLargeTextChange(t, site, engine, accountId, 900_000);
  const [stored] = await t.db.query<{ diff: { detail: string } }>('SELECT diff FROM change_diffs WHERE change_id = $1', [changeId]);
  assert.equal(stored?.diff.detail, 'too_large', 'computed within its budget when the change was recorded');
  // A marker in place of the stored diff: a request that computed the diff itself would not answer it.
  await t.db.query('UPDATE change_diffs SET diff = $2::jsonb WHERE change_id = $1', [
    changeId,
    JSON.stringify({ ...PLANTED, hunks: [{ before_start: 7, before_count: 7, after_start: 7, after_count: 7, words: null }] }),
  ]);

  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  let done = false;
  const flood = Promise.all(
    Array.from({ length: 10 }, () => fetch(`${base}/api/v1/changes/${changeId}`, { headers: bearer(token) }).then((r) => r.json())),
  ).finally(() => (done = true));
  let probes = 0;
  do {
    assert.equal((await fetch(`${base}/healthz`)).status, 200);
    probes++;
  } while (!done);
  for (const answer of await flood) {
    assert.equal(answer.data.diff_detail, 'too_large');
    assert.deepEqual(answer.data.hunks, [{ before_start: 7, before_count: 7, after_start: 7, after_count: 7, words: null }]);
  }
  assert.ok(probes >= 1);
});

test("the dashboard's page of a large change shows the stored diff", async () => {
  const owner = await createOwner(t.app);
  const changeId = await recordLargeTextChange(t, site, engine, owner.accountId, 200_000);
  await t.db.query('UPDATE change_diffs SET diff = $2::jsonb WHERE change_id = $1', [
    changeId,
    JSON.stringify({ ...PLANTED, hunks: [{ before_start: 5, before_count: 3, after_start: 5, after_count: 4, words: null }] }),
  ]);
  const client = await signedIn(t.app, owner.email);
  const page = await client.get(`/changes/${changeId}`);
  assert.equal(page.statusCode, 200);
  assert.match(page.body, /too large to compare in detail; the changes lie within lines 5–7 before, lines 5–8 after\./);
});
