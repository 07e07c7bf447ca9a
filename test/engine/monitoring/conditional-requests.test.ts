import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SteppedEngine } from '../../../src/engine/scheduler.ts';
import { bearer, createAccountWithToken, type TestApp } from '../../helpers/test-app.ts';
import type { FixtureServer } from '../../helpers/fixture-server.ts';
import { createMonitorFor, loadPreview, patchMonitor } from '../../helpers/monitor-api.ts';
import { PRICE, TITLE } from '../../helpers/watched-page.ts';
import { useMonitoringWorld } from '../../helpers/monitoring-world.ts';
import { checkDueMonitor } from '../../helpers/test-engine.ts';
import { serveValidatingPage, type ValidatingPage } from '../../helpers/validating-page.ts';

// Conditional requests through stored monitors and the engine (issue #41):
// the validators of the last full answer are sent with the next scheduled
// check; a 304 is a successful check with no change, recorded as
// not_modified, without reading the page; manual checks and the first check
// after a target or rule change load the page whole; a server that ignores the
// validators is read whole as before. Manual checks may run at once here
// (plan minimum 0).

let t: TestApp, site: FixtureServer, engine: SteppedEngine;
useMonitoringWorld({ plans: { pro: { min_interval_minutes: { html: 0 }, preview_spacing_seconds: 0 } } }, (w) => ({ t, site, engine } = w));

let n = 0;

interface Run {
  outcome: string;
  http_status: number | null;
  changes: string[];
  issues: unknown[];
}

/** A monitor of a fresh validating page (the page's title as the monitor's target); other monitors are paused so that only it falls due. */
async function watch(options: { honoursValidators?: boolean } = {}) {
  await t.db.query("UPDATE monitors SET status = 'paused'");
  const { token } = await createAccountWithToken(t.app);
  const page = serveValidatingPage(site, options);
  const monitorId = await createMonitorFor(t.app, token, page.url, { interval_minutes: 5, targets: [TITLE] });
  // The preview's load is not a check: count the monitor's own requests from here.
  page.requests.length = 0;
  return { token, page, monitorId };
}

async function scheduledCheck(monitorId: string): Promise<void> {
  await checkDueMonitor(t, engine, monitorId);
}

/** The monitor's check history as the API shows it, oldest first. */
async function history(token: string, monitorId: string): Promise<Run[]> {
  const res = await t.app.inject({ method: 'GET', url: `/api/v1/monitors/${monitorId}/checks?limit=100`, headers: bearer(token) });
  assert.equal(res.statusCode, 200, res.body);
  return (res.json().data as Run[]).reverse();
}

const sentValidators = (page: ValidatingPage) => page.requests.map((r) => r['if-none-match'] !== undefined);

test('an unchanged page is asked for with its validators; the 304 is a successful check shown as not_modified, with no change', async () => {
  const { token, page, monitorId } = await watch();
  await scheduledCheck(monitorId);
  await scheduledCheck(monitorId);
  await scheduledCheck(monitorId);
  assert.deepEqual(sentValidators(page), [false, true, true], 'the seeding check reads the page whole, the next ones conditionally');
  assert.equal(page.notModifiedAnswers, 2);
  const runs = await history(token, monitorId);
  assert.deepEqual(
    runs.map((r) => [r.outcome, r.http_status, r.changes.length, r.issues.length]),
    [
      ['ok', 200, 0, 0],
      ['not_modified', 304, 0, 0],
      ['not_modified', 304, 0, 0],
    ],
  );
  const monitor = (await t.app.inject({ method: 'GET', url: `/api/v1/monitors/${monitorId}`, headers: bearer(token) })).json().data;
  assert.deepEqual(monitor.last_issues, []);
  assert.equal(monitor.failing_since, null);
  assert.equal(monitor.observations[0].value, 'Espresso Duo', 'the baseline stays the last page read');
});

test('a 304 reads nothing of the page: a change behind an unchanged ETag is not seen until the page is read whole', async () => {
  const { token, page, monitorId } = await watch();
  await scheduledCheck(monitorId);
  page.setPage({ title: 'Espresso Trio' }, { newVersion: false });
  await scheduledCheck(monitorId);
  page.setPage({}, { newVersion: true });
  await scheduledCheck(monitorId);
  const runs = await history(token, monitorId);
  assert.deepEqual(
    runs.map((r) => [r.outcome, r.changes.length]),
    [
      ['ok', 0],
      ['not_modified', 0],
      ['ok', 1],
    ],
  );
});

test('a changed page answers 200 and is read as before: the change is recorded and its new validators are sent next', async () => {
  const { token, page, monitorId } = await watch();
  await scheduledCheck(monitorId);
  page.setPage({ title: 'Espresso Quattro' });
  await scheduledCheck(monitorId);
  await scheduledCheck(monitorId);
  assert.deepEqual(
    page.requests.map((r) => r['if-none-match'] ?? null),
    [null, '"v1"', '"v2"'],
  );
  const runs = await history(token, monitorId);
  assert.deepEqual(
    runs.map((r) => [r.outcome, r.changes.length]),
    [
      ['ok', 0],
      ['ok', 1],
      ['not_modified', 0],
    ],
  );
});

test('a server that ignores the validators is read whole every time and its changes are found', async () => {
  const { token, page, monitorId } = await watch({ honoursValidators: false });
  await scheduledCheck(monitorId);
  await scheduledCheck(monitorId);
  page.setPage({ title: 'Espresso Solo' }, { newVersion: false });
  await scheduledCheck(monitorId);
  assert.deepEqual(sentValidators(page), [false, true, true]);
  assert.equal(page.notModifiedAnswers, 0);
  const runs = await history(token, monitorId);
  assert.deepEqual(
    runs.map((r) => [r.outcome, r.http_status, r.changes.length]),
    [
      ['ok', 200, 0],
      ['ok', 200, 0],
      ['ok', 200, 1],
    ],
  );
});

test('a manual check always loads the page whole', async () => {
  const { token, page, monitorId } = await watch();
  await scheduledCheck(monitorId);
  const requested = await t.app.inject({
    method: 'POST',
    url: `/api/v1/monitors/${monitorId}/checks`,
    headers: { ...bearer(token), 'content-type': 'application/json', 'idempotency-key': `conditional-manual-${++n}` },
    payload: '{}',
  });
  assert.equal(requested.statusCode, 202, requested.body);
  await engine.runCycle();
  assert.deepEqual(sentValidators(page), [false, false]);
  const runs = await history(token, monitorId);
  assert.equal(runs.at(-1)!.outcome, 'ok');
});

test('the first check after a target change loads the page whole; the one after it is conditional again', async () => {
  const { token, page, monitorId } = await watch();
  await scheduledCheck(monitorId);
  await scheduledCheck(monitorId);
  const changed = await patchMonitor(t.app, token, monitorId, {
    preview_id: await loadPreview(t.app, token, page.url),
    targets: [TITLE, PRICE],
    expected_version: 1,
  });
  assert.equal(changed.statusCode, 200, changed.body);
  page.requests.length = 0;
  await scheduledCheck(monitorId);
  await scheduledCheck(monitorId);
  assert.deepEqual(sentValidators(page), [false, true]);
});

test("the first check after a change of a target's rule alone loads the page whole; the one after it is conditional again", async () => {
  const { token, page, monitorId } = await watch();
  await scheduledCheck(monitorId);
  await scheduledCheck(monitorId);
  const changed = await patchMonitor(t.app, token, monitorId, {
    preview_id: await loadPreview(t.app, token, page.url),
    targets: [{ ...TITLE, rule: 'appears', phrase: 'Trio' }],
    expected_version: 1,
  });
  assert.equal(changed.statusCode, 200, changed.body);
  page.requests.length = 0;
  await scheduledCheck(monitorId);
  await scheduledCheck(monitorId);
  assert.deepEqual(sentValidators(page), [false, true]);
});

test('a check whose target could not be read keeps no validators: the next check reads the page whole', async () => {
  await t.db.query("UPDATE monitors SET status = 'paused'");
  const { token } = await createAccountWithToken(t.app);
  const page = serveValidatingPage(site);
  const monitorId = await createMonitorFor(t.app, token, page.url, { interval_minutes: 5, targets: [TITLE] });
  page.requests.length = 0;
  await scheduledCheck(monitorId);
  // A new version of the page, and a target whose selector matches nothing on it.
  page.setPage({ note: 'Restocked soon' });
  await t.db.query("UPDATE monitors SET targets = jsonb_set(targets, '{0,selection,selector}', '\"#gone\"') WHERE id = $1", [monitorId]);
  await scheduledCheck(monitorId);
  await scheduledCheck(monitorId);
  assert.deepEqual(sentValidators(page), [false, true, false]);
  const runs = await history(token, monitorId);
  assert.deepEqual(
    runs.map((r) => r.outcome),
    ['ok', 'issues', 'issues'],
  );
});

test("a confirm target's re-check reads the page whole, so the value it waits for is seen again and becomes a change", async () => {
  await t.db.query("UPDATE monitors SET status = 'paused'");
  const { token } = await createAccountWithToken(t.app);
  const page = serveValidatingPage(site);
  const monitorId = await createMonitorFor(t.app, token, page.url, { interval_minutes: 5, targets: [{ ...TITLE, confirm: true }] });
  page.requests.length = 0;
  await scheduledCheck(monitorId);
  page.setPage({ title: 'Espresso Doppio' });
  // Seen once: the value waits for its re-check, which must not be answered by a 304.
  await scheduledCheck(monitorId);
  await scheduledCheck(monitorId);
  assert.deepEqual(sentValidators(page), [false, true, false]);
  const runs = await history(token, monitorId);
  assert.deepEqual(
    runs.map((r) => [r.outcome, r.changes.length]),
    [
      ['ok', 0],
      ['ok', 0],
      ['ok', 1],
    ],
  );
});
