import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SteppedEngine } from '../../src/engine/scheduler.ts';
import { cleanupExpired } from '../../src/engine/housekeeping.ts';
import { bearer, createAccountWithToken, type TestApp } from '../helpers/test-app.ts';
import type { FixtureServer } from '../helpers/fixture-server.ts';
import { useMonitoringWorld } from '../helpers/monitoring-world.ts';
import { PRICE, TITLE, watchPage } from '../helpers/watched-page.ts';

let t: TestApp, site: FixtureServer, engine: SteppedEngine;
useMonitoringWorld({}, (w) => ({ t, site, engine } = w));

type Run = {
  checked_at: string;
  outcome: string;
  http_status: number | null;
  issues: { code: string; target_id: string | null }[];
  changes: string[];
};

async function history(token: string, monitorId: string, query = '') {
  return t.app.inject({ method: 'GET', url: `/api/v1/monitors/${monitorId}/checks${query}`, headers: bearer(token) });
}

async function allRuns(token: string, monitorId: string, limit: number): Promise<Run[]> {
  const runs: Run[] = [];
  let cursor: string | null = null;
  do {
    const res = await history(token, monitorId, `?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    assert.equal(res.statusCode, 200, res.body);
    runs.push(...res.json().data);
    cursor = res.json().meta.next_cursor;
  } while (cursor);
  return runs;
}

test('every recorded check is listed newest first with its outcome, issues and the changes it made', async () => {
  const { accountId, token } = await createAccountWithToken(t.app);
  const page = await watchPage(t, site, engine, { accountId, targets: [TITLE, PRICE] });
  await page.check();
  const first = t.clock.now().toISOString();
  await page.check({ price: '€25.00' });
  await page.check({ price: '' });
  const runs = await allRuns(token, page.monitorId, 2);
  assert.deepEqual(
    runs.map((r) => r.outcome),
    ['issues', 'ok', 'ok'],
  );
  assert.equal(runs[2]?.checked_at, first);
  assert.deepEqual(
    runs.map((r) => r.http_status),
    [200, 200, 200],
  );
  assert.equal(runs[1]?.changes.length, 1, 'the price change');
  const [change] = (
    await t.app.inject({ method: 'GET', url: `/api/v1/changes?monitor_id=${page.monitorId}`, headers: bearer(token) })
  ).json().data;
  assert.deepEqual(runs[1]?.changes, [change.id]);
  assert.deepEqual(runs[2]?.changes, [], 'the first capture seeds the baseline and records no change');
  assert.deepEqual(
    runs[0]?.issues.map((i) => i.target_id),
    ['price'],
  );
});

test('the history is newest first and paging with any page size from 1 to 11 lists every check once', async () => {
  const { accountId, token } = await createAccountWithToken(t.app);
  const page = await watchPage(t, site, engine, { accountId });
  // The checks' sequence numbers cross from one digit to two (or more), where text order and number order part.
  const [seq] = await t.db.query<{ last: string }>(
    "SELECT last_value::text AS last FROM pg_sequences WHERE sequencename = 'check_runs_seq_seq' AND schemaname = current_schema()",
  );
  const digits = String(BigInt(seq?.last ?? '0') + 1n).length;
  await t.db.query("SELECT setval(pg_get_serial_sequence('check_runs', 'seq'), $1::bigint)", [10n ** BigInt(digits) - 5n]);
  const checkedAt: string[] = [];
  for (let i = 0; i < 12; i++) {
    await page.check();
    checkedAt.unshift(t.clock.now().toISOString());
  }
  for (let limit = 1; limit <= 11; limit++) {
    const runs = await allRuns(token, page.monitorId, limit);
    assert.deepEqual(
      runs.map((r) => r.checked_at),
      checkedAt,
      `limit=${limit}`,
    );
  }
});

test('a check whose page did not load is a failed check', async () => {
  const { accountId, token } = await createAccountWithToken(t.app);
  const page = await watchPage(t, site, engine, { accountId });
  site.route(page.path, (_req, res) => {
    res.writeHead(500).end('down');
  });
  await page.check();
  const [run] = await allRuns(token, page.monitorId, 20);
  assert.equal(run?.outcome, 'failed');
  assert.equal(run?.http_status, 500);
});

test("the history is the account's own, kept for the plan's retention, and removed by cleanup after it", async () => {
  const { accountId, token } = await createAccountWithToken(t.app, { days: 365 });
  const page = await watchPage(t, site, engine, { accountId });
  await page.check();
  const other = await createAccountWithToken(t.app);
  assert.equal((await history(other.token, page.monitorId)).statusCode, 404);

  t.clock.advance(91 * 86_400_000);
  assert.deepEqual((await history(token, page.monitorId)).json().data, [], 'retention applies on read');
  const rows = async () => (await t.db.query('SELECT 1 FROM check_runs WHERE monitor_id = $1', [page.monitorId])).length;
  assert.equal(await rows(), 1);
  await cleanupExpired(t.db, t.config.plans, t.clock.now());
  assert.equal(await rows(), 0);
});

test('a tampered history cursor is 400 malformed_cursor', async () => {
  const { accountId, token } = await createAccountWithToken(t.app);
  const page = await watchPage(t, site, engine, { accountId });
  await page.check();
  await page.check();
  const cursor = (await history(token, page.monitorId, '?limit=1')).json().meta.next_cursor as string;
  const other = await watchPage(t, site, engine, { accountId });
  const res = await history(token, other.monitorId, `?cursor=${encodeURIComponent(cursor)}`);
  assert.equal(res.statusCode, 400, 'a cursor is bound to its monitor');
  assert.equal(res.json().error.code, 'malformed_cursor');
});
