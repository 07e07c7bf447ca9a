import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SteppedEngine } from '../../src/engine/scheduler.ts';
import { createOwner, signedIn } from '../helpers/dashboard-client.ts';
import { bearer, createAccountWithToken, type TestApp } from '../helpers/test-app.ts';
import type { FixtureServer } from '../helpers/fixture-server.ts';
import { useMonitoringWorld } from '../helpers/monitoring-world.ts';
import { watchPage } from '../helpers/watched-page.ts';
import type { Target } from '../../src/domain/targets.ts';

// A change's diff is computed once, in the extraction threads, when the change
// is recorded, and every reader is served the stored one.

let t: TestApp, site: FixtureServer, engine: SteppedEngine;
useMonitoringWorld({}, (w) => ({ t, site, engine } = w));

const NOTE: Target = { id: 'note', kind: 'text', selection: { scope: 'selector', selector: '#note' }, rule: 'changed' };

/** Lines of the note, one line of captured text each. */
const paragraphs = (lines: string[]) => lines.join('<br>');
const lorem = (count: number) => Array.from({ length: count }, (_, i) => `Lorem ipsum dolor sit amet, paragraph ${i}.`);

async function noteChange(accountId: string, before: string[], after: string[]) {
  const page = await watchPage(t, site, engine, { accountId, targets: [NOTE], initial: { note: paragraphs(before) } });
  await page.check();
  await page.check({ note: paragraphs(after) });
  const [change] = await t.db.query<{ id: string }>('SELECT id FROM changes WHERE monitor_id = $1', [page.monitorId]);
  assert.ok(change, 'the change was recorded');
  return change.id;
}

async function storedDiff(changeId: string) {
  const rows = await t.db.query<{ diff: { detail: string; unified: string } }>('SELECT diff FROM change_diffs WHERE change_id = $1', [
    changeId,
  ]);
  return rows[0]?.diff ?? null;
}

function detail(token: string, changeId: string) {
  return t.app.inject({ method: 'GET', url: `/api/v1/changes/${changeId}`, headers: bearer(token) });
}

test("a change's diff is stored when the change is recorded, before anyone reads it", async () => {
  const { accountId } = await createAccountWithToken(t.app);
  const id = await noteChange(accountId, ['Ships in November.'], ['Ships in December.']);
  const diff = await storedDiff(id);
  assert.equal(diff?.detail, 'complete');
  assert.equal(diff?.unified, '--- before\n+++ after\n@@ -1,1 +1,1 @@\n-Ships in November.\n+Ships in December.\n');
});

test('the API serves the stored diff rather than computing one', async () => {
  const { accountId, token } = await createAccountWithToken(t.app);
  const id = await noteChange(accountId, ['one'], ['two']);
  const planted = { detail: 'complete', unified: '--- before\n+++ after\n@@ -1,1 +1,1 @@\n-planted\n+diff\n', hunks: [] };
  await t.db.query('UPDATE change_diffs SET diff = $2::jsonb WHERE change_id = $1', [id, JSON.stringify(planted)]);
  const res = await detail(token, id);
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(res.json().data.diff, planted.unified);
});

test('the dashboard serves the stored diff rather than computing one', async () => {
  const owner = await createOwner(t.app);
  const id = await noteChange(owner.accountId, ['one'], ['two']);
  const planted = { detail: 'complete', unified: '--- before\n+++ after\n@@ -1,1 +1,1 @@\n-planted line\n+diff\n', hunks: [] };
  await t.db.query('UPDATE change_diffs SET diff = $2::jsonb WHERE change_id = $1', [id, JSON.stringify(planted)]);
  const client = await signedIn(t.app, owner.email);
  const page = await client.get(`/changes/${id}`);
  assert.equal(page.statusCode, 200);
  assert.match(page.body, /planted line/);
});

test('a change recorded without a stored diff has it computed and stored on its first read', async () => {
  const { accountId, token } = await createAccountWithToken(t.app);
  const id = await noteChange(accountId, ['alpha', 'beta'], ['alpha', 'gamma']);
  await t.db.query('DELETE FROM change_diffs WHERE change_id = $1', [id]);
  const res = await detail(token, id);
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(res.json().data.diff, '--- before\n+++ after\n@@ -1,2 +1,2 @@\n alpha\n-beta\n+gamma\n');
  assert.equal((await storedDiff(id))?.unified, res.json().data.diff);
});

test('first reads at once of a change without a stored diff all get it, and one is stored', async () => {
  const { accountId, token } = await createAccountWithToken(t.app);
  const id = await noteChange(accountId, ['alpha'], ['omega']);
  await t.db.query('DELETE FROM change_diffs WHERE change_id = $1', [id]);
  const answers = await Promise.all(Array.from({ length: 6 }, () => detail(token, id)));
  for (const res of answers) assert.equal(res.json().data.diff, '--- before\n+++ after\n@@ -1,1 +1,1 @@\n-alpha\n+omega\n');
  assert.equal((await t.db.query('SELECT 1 FROM change_diffs WHERE change_id = $1', [id])).length, 1);
});

test('a change near the end of a long text is shown with its context and its changed words', async () => {
  const { accountId, token } = await createAccountWithToken(t.app);
  // Just under the 1500 characters a text value keeps, like the two Lorem-ipsum prefixes.
  const id = await noteChange(accountId, [...lorem(28), 'Next date: November'], [...lorem(28), 'Next date: December']);
  const data = (await detail(token, id)).json().data;
  assert.equal(data.diff_detail, 'complete');
  assert.match(
    data.diff,
    /@@ -26,4 \+26,4 @@\n Lorem ipsum dolor sit amet, paragraph 25\.\n(.*\n){2}-Next date: November\n\+Next date: December\n$/,
  );
  assert.deepEqual(data.hunks, [
    {
      before_start: 29,
      before_count: 1,
      after_start: 29,
      after_count: 1,
      words: [
        { op: 'same', text: 'Next date: ' },
        { op: 'removed', text: 'November' },
        { op: 'added', text: 'December' },
      ],
    },
  ]);
});

test('texts too different to compare in detail say so, with the range of changed lines', async () => {
  const { accountId, token } = await createAccountWithToken(t.app);
  const before = lorem(3000);
  const after = before.map((line, i) => (i % 2 === 0 ? line.toUpperCase() : line));
  const id = await noteChange(accountId, ['Head', ...before, 'Tail'], ['Head', ...after, 'Tail']);
  const data = (await detail(token, id)).json().data;
  assert.equal(data.diff_detail, 'too_large');
  assert.equal(data.diff, '--- before\n+++ after\n');
  assert.deepEqual(data.hunks, [{ before_start: 2, before_count: 2999, after_start: 2, after_count: 2999, words: null }]);
});
