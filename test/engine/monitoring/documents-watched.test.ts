import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SteppedEngine } from '../../../src/engine/scheduler.ts';
import { createAccountWithToken, type TestApp } from '../../helpers/test-app.ts';
import type { FixtureServer } from '../../helpers/fixture-server.ts';
import { loadPreview, postMonitor } from '../../helpers/monitor-api.ts';
import { useMonitoringWorld } from '../../helpers/monitoring-world.ts';
import { checkDueMonitor } from '../../helpers/test-engine.ts';
import { makePdf } from '../../helpers/pdf-documents.ts';

// Documents other than HTML pages watched end to end: a monitor created
// through the API from a preview, checked by the engine, a change recorded and
// an alert queued when the watched value changes.

let t: TestApp, site: FixtureServer, engine: SteppedEngine;
useMonitoringWorld({}, (w) => ({ t, site, engine } = w));

let served = 0;

/** A monitor of a document the test serves (and changes), created through the API. */
async function watchDocument(contentType: string, initial: string | Buffer, target: Record<string, unknown>) {
  await t.db.query("UPDATE monitors SET status = 'paused'");
  const { token } = await createAccountWithToken(t.app);
  const path = `/document-${process.pid}-${++served}`;
  let body = initial;
  site.route(path, (_req, res) => {
    res.writeHead(200, { 'content-type': contentType });
    res.end(body);
  });
  const previewId = await loadPreview(t.app, token, `${site.url}${path}`);
  const created = await postMonitor(t.app, token, {
    preview_id: previewId,
    targets: [target],
    interval_minutes: 5,
    notifications: { email_enabled: true },
  });
  assert.equal(created.statusCode, 201, created.body);
  const monitorId: string = created.json().data.id;
  const check = async (next?: string | Buffer) => {
    if (next !== undefined) body = next;
    await checkDueMonitor(t, engine, monitorId);
  };
  const changes = () =>
    t.db.query<{ id: string; before_value: unknown; after_value: unknown; rule_matches: unknown }>(
      'SELECT id, before_value, after_value, rule_matches FROM changes WHERE monitor_id = $1 ORDER BY detected_at, id',
      [monitorId],
    );
  const alerts = (changeId: string) =>
    t.db.query<{ channel: string }>('SELECT channel FROM notification_outbox WHERE change_id = $1', [changeId]);
  const issues = async () =>
    (
      await t.db.query<{ last_issues: { code: string }[] }>('SELECT last_issues FROM check_state WHERE monitor_id = $1', [monitorId])
    )[0]?.last_issues.map((i) => i.code);
  return { check, changes, alerts, issues };
}

const offer = (price: number) => JSON.stringify({ item: { name: 'Kettle', offers: [{ price, currency: 'EUR' }] } });

test('a price drop in a JSON API is a change record and an alert', async () => {
  const m = await watchDocument('application/json; charset=utf-8', offer(24.99), {
    id: 'price',
    kind: 'price',
    selection: { scope: 'json', path: '$.item.offers[0].price' },
    currency: 'EUR',
    rule: 'dropped',
  });
  await m.check();
  assert.equal((await m.changes()).length, 0, 'the first capture seeds the baseline');
  await m.check(offer(19.99));
  const [change, ...more] = await m.changes();
  assert.ok(change);
  assert.equal(more.length, 0);
  assert.deepEqual([change.before_value, change.after_value], [2499, 1999]);
  assert.deepEqual(change.rule_matches, [{ target_id: 'price', rule: 'dropped' }]);
  assert.deepEqual(
    (await m.alerts(change.id)).map((a) => a.channel),
    ['email'],
  );
});

test('a JSON path that stops selecting a value is a selector_missing issue on the monitor, no change', async () => {
  const m = await watchDocument('application/vnd.api+json', offer(5), {
    id: 'price',
    kind: 'price',
    selection: { scope: 'json', path: '$.item.offers[0].price' },
    currency: 'EUR',
  });
  await m.check();
  await m.check(JSON.stringify({ item: { offers: [] } }));
  assert.deepEqual(await m.issues(), ['selector_missing']);
  assert.equal((await m.changes()).length, 0);
});

test('a JSON document that stops parsing is a json_invalid issue, never an empty value', async () => {
  const m = await watchDocument('application/json', offer(5), { id: 'all', kind: 'text', selection: { scope: 'page' }, rule: 'changed' });
  await m.check();
  await m.check('{"item": ');
  assert.deepEqual(await m.issues(), ['json_invalid']);
  assert.equal((await m.changes()).length, 0);
});

const timetable = (departure: string) =>
  `<!doctype html><html><body><table><tr><th>Line</th><td>S1</td></tr><tr><th>Next departure</th><td>${departure}</td></tr></table></body></html>`;

test('a text change found by XPath is a change record and an alert', async () => {
  const m = await watchDocument('text/html; charset=utf-8', timetable('08:15'), {
    id: 'next',
    kind: 'text',
    selection: { scope: 'xpath', expression: "//th[text()='Next departure']/following-sibling::td" },
    rule: 'changed',
  });
  await m.check();
  await m.check(timetable('08:45'));
  const [change, ...more] = await m.changes();
  assert.ok(change);
  assert.equal(more.length, 0);
  assert.deepEqual([change.before_value, change.after_value], ['08:15', '08:45']);
  assert.deepEqual(change.rule_matches, [{ target_id: 'next', rule: 'changed' }]);
  assert.deepEqual(
    (await m.alerts(change.id)).map((a) => a.channel),
    ['email'],
  );
});

const timetablePdf = (departure: string) =>
  makePdf([{ lines: [{ text: 'Timetable S1', size: 18 }, { text: `First train ${departure}` }] }]);

test('a change in a PDF is a change record and an alert', async () => {
  const m = await watchDocument('application/pdf', timetablePdf('05:12'), {
    id: 'pdf',
    kind: 'text',
    selection: { scope: 'page' },
    rule: 'changed',
  });
  await m.check();
  await m.check(timetablePdf('05:42'));
  const [change, ...more] = await m.changes();
  assert.ok(change);
  assert.equal(more.length, 0);
  assert.deepEqual([change.before_value, change.after_value], ['Timetable S1 First train 05:12', 'Timetable S1 First train 05:42']);
  assert.deepEqual(
    (await m.alerts(change.id)).map((a) => a.channel),
    ['email'],
  );
});

test('a PDF that becomes encrypted is a pdf_unreadable issue on the monitor, no change', async () => {
  const m = await watchDocument('application/pdf', timetablePdf('05:12'), { id: 'pdf', kind: 'text', selection: { scope: 'page' } });
  await m.check();
  await m.check(makePdf([{ lines: [{ text: 'First train 05:12' }] }], { encrypted: true }));
  assert.deepEqual(await m.issues(), ['pdf_unreadable']);
  assert.equal((await m.changes()).length, 0);
});
