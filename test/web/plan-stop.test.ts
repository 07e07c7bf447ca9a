import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { admin, bearer, createAccountWithToken, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { insertMonitorRow } from '../helpers/monitor-rows.ts';
import { TITLE } from '../helpers/watched-page.ts';
import { createOwner, signedIn } from '../helpers/dashboard-client.ts';

// Monitors the account's plan keeps from being checked say so: in the API's
// last_issues (code not_in_plan) and on the dashboard, instead of an
// "active, next check" that never comes.

let t: TestApp;
before(async () => {
  // The operator's plans: Pro without browser checks.
  t = await startTestApp({ plans: { pro: { checks_per_month: { browser: 0 } } } });
});
after(() => t.close());

async function monitorOf(accountId: string, loadMode: 'html' | 'browser' = 'html'): Promise<string> {
  return insertMonitorRow(t.db, {
    accountId,
    url: `https://shop.example/espresso-${loadMode}`,
    targets: [TITLE],
    nextCheckAt: t.clock.now(),
    loadMode,
  });
}

test('an active monitor of a load mode the plan has no checks of says in last_issues that it is not checked', async () => {
  const { accountId, token } = await createAccountWithToken(t.app);
  const browser = await monitorOf(accountId, 'browser');
  const html = await monitorOf(accountId, 'html');
  const read = async (id: string) =>
    (await t.app.inject({ method: 'GET', url: `/api/v1/monitors/${id}`, headers: bearer(token) })).json().data;
  const stopped = await read(browser);
  assert.deepEqual(
    stopped.last_issues.map((i: { code: string; target_id: string | null }) => [i.code, i.target_id]),
    [['not_in_plan', null]],
  );
  assert.match(stopped.last_issues[0].message, /no browser checks/);
  assert.deepEqual((await read(html)).last_issues, [], 'an html monitor is checked');
  const list = (await t.app.inject({ method: 'GET', url: '/api/v1/monitors', headers: bearer(token) })).json().data;
  assert.equal(list.find((m: { id: string }) => m.id === browser).last_issues[0].code, 'not_in_plan', 'the list says so too');
  await t.db.query("UPDATE monitors SET status = 'paused' WHERE id = $1", [browser]);
  assert.deepEqual((await read(browser)).last_issues, [], 'a paused monitor is not meant to be checked');
});

test('after the operator moves the account to a plan without monitoring, the dashboard says its monitors are not checked', async () => {
  const { accountId, email } = await createOwner(t.app);
  const id = await monitorOf(accountId);
  const client = await signedIn(t.app, email);
  assert.doesNotMatch((await client.get(`/monitors/${id}`)).body, /not checked/, 'checked while the plan is pro');
  assert.equal((await admin(t.app, 'PATCH', `/accounts/${accountId}`, { plan: 'free' })).statusCode, 200);
  const page = (await client.get(`/monitors/${id}`)).body;
  assert.match(page, /<span class="state state-failing">not checked<\/span>/);
  assert.match(page, /<dt>Next check<\/dt><dd><span class="stale">not checked: the account&#39;s plan does not include monitoring/);
  assert.match((await client.get('/')).body, /not checked/, 'the monitor list says so too');
});
