import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { bearer, createAccountWithToken, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.ts';
import { loadPreview, patchMonitor, postMonitor, TITLE_TARGET } from '../helpers/monitor-api.ts';

// The monitor field `schedule` (issue #41) through the API: stored and shown
// as given, validated with per-field details (DESIGN §3: 422
// validation_failed), changed like the interval (a fresh preview and the
// current config_version), and safe under parallel updates of one account.

let t: TestApp;
let site: FixtureServer;
let n = 0;
const page = () => `${site.url}/shop/espresso.html?schedule=${++n}`;

before(async () => {
  t = await startTestApp({
    plans: { pro: { preview_spacing_seconds: 0, previews_per_day: 1000, previews_per_month: 1000, requests_per_minute: 100_000 } },
  });
  site = await startFixtureServer();
});
after(async () => {
  await t.close();
  await site.close();
});

const OFFICE = { timezone: 'Europe/Berlin', days: ['mon', 'tue', 'wed', 'thu', 'fri'], hours: { from: 9, to: 17 } };

async function create(token: string, extra: Record<string, unknown>) {
  const previewId = await loadPreview(t.app, token, page());
  return postMonitor(t.app, token, { preview_id: previewId, targets: [TITLE_TARGET], interval_minutes: 60, ...extra });
}

function getMonitor(token: string, id: string) {
  return t.app.inject({ method: 'GET', url: `/api/v1/monitors/${id}`, headers: bearer(token) });
}

test('a schedule given on creation is stored and shown as given; a monitor without one shows null', async () => {
  const { token } = await createAccountWithToken(t.app);
  const created = await create(token, { schedule: { ...OFFICE, jitter_seconds: 120 } });
  assert.equal(created.statusCode, 201, created.body);
  const shown = (await getMonitor(token, created.json().data.id)).json().data;
  assert.deepEqual(shown.schedule, { ...OFFICE, jitter_seconds: 120 });
  assert.equal(typeof shown.next_check_at, 'string');
  const plain = await create(token, {});
  assert.equal((await getMonitor(token, plain.json().data.id)).json().data.schedule, null);
});

test('a cron firing more often than the plan minimum interval is 422 validation_failed naming schedule.cron', async () => {
  const { token } = await createAccountWithToken(t.app);
  const res = await create(token, { schedule: { timezone: 'UTC', cron: '*/2 * * * *' } });
  assert.equal(res.statusCode, 422, res.body);
  assert.equal(res.json().error.code, 'validation_failed');
  assert.deepEqual(
    res.json().error.details.map((d: { field: string }) => d.field),
    ['schedule.cron'],
  );
  assert.match(res.json().error.details[0].message, /2 minutes apart.*minimum interval is 5/);
});

test('an unknown time zone, cron together with days, and active hours shorter than the interval are 422 with their fields', async () => {
  const { token } = await createAccountWithToken(t.app);
  const cases: [Record<string, unknown>, string][] = [
    [{ timezone: 'Europe/Atlantis', days: ['mon'] }, 'schedule.timezone'],
    [{ timezone: 'UTC', cron: '0 9 * * *', days: ['mon'] }, 'schedule.cron'],
    [{ timezone: 'UTC', hours: { from: 9, to: 10 } }, 'interval_minutes'],
  ];
  for (const [schedule, field] of cases) {
    const res = await create(token, { schedule, interval_minutes: 120 });
    assert.equal(res.statusCode, 422, res.body);
    assert.equal(res.json().error.details[0].field, field, JSON.stringify(schedule));
  }
});

test('unknown schedule fields are 400 unknown_field; hours and days out of range are 422 naming the field', async () => {
  const { token } = await createAccountWithToken(t.app);
  const unknown = await create(token, { schedule: { timezone: 'UTC', days: ['mon'], weeks: 2 } });
  assert.equal(unknown.statusCode, 400, unknown.body);
  assert.equal(unknown.json().error.code, 'unknown_field');
  const badHour = await create(token, { schedule: { timezone: 'UTC', hours: { from: 9, to: 25 } } });
  assert.equal(badHour.statusCode, 422, badHour.body);
  assert.equal(badHour.json().error.details[0].field, 'schedule.hours.to');
  const badDay = await create(token, { schedule: { timezone: 'UTC', days: ['someday'] } });
  assert.equal(badDay.statusCode, 422, badDay.body);
  assert.match(badDay.json().error.details[0].field, /^schedule\.days/);
});

test('changing the schedule needs a fresh preview and the current config_version, like the interval; null removes it', async () => {
  const { token } = await createAccountWithToken(t.app);
  const created = await create(token, {});
  const id = created.json().data.id as string;
  const { url } = (await getMonitor(token, id)).json().data;
  const withoutVersion = await patchMonitor(t.app, token, id, { schedule: OFFICE });
  assert.equal(withoutVersion.statusCode, 422);
  assert.equal(withoutVersion.json().error.details[0].field, 'expected_version');
  const withoutPreview = await patchMonitor(t.app, token, id, { schedule: OFFICE, expected_version: 1 });
  assert.equal(withoutPreview.statusCode, 422);
  assert.equal(withoutPreview.json().error.details[0].field, 'preview_id');

  const set = await patchMonitor(t.app, token, id, {
    schedule: OFFICE,
    expected_version: 1,
    preview_id: await loadPreview(t.app, token, url),
  });
  assert.equal(set.statusCode, 200, set.body);
  assert.deepEqual(set.json().data.schedule, OFFICE);
  assert.equal(set.json().data.config_version, 2);
  const removed = await patchMonitor(t.app, token, id, {
    schedule: null,
    expected_version: 2,
    preview_id: await loadPreview(t.app, token, url),
  });
  assert.equal(removed.statusCode, 200, removed.body);
  assert.equal(removed.json().data.schedule, null);
  const [row] = await t.db.query<{ schedule: unknown }>('SELECT schedule FROM monitors WHERE id = $1', [id]);
  assert.equal(row!.schedule, null, 'stored as SQL NULL, not the JSON value null');
});

test('30 parallel schedule updates of one account at the same config_version: one wins per monitor, the rest 409 version_conflict', async () => {
  const { token } = await createAccountWithToken(t.app);
  const monitors: { id: string; previewId: string }[] = [];
  for (let i = 0; i < 3; i++) {
    const created = await create(token, {});
    const id = created.json().data.id as string;
    monitors.push({ id, previewId: '' });
  }
  // Previews last: only the account's three newest are kept.
  for (const m of monitors) m.previewId = await loadPreview(t.app, token, (await getMonitor(token, m.id)).json().data.url);
  const responses = await Promise.all(
    Array.from({ length: 30 }, (_, i) => {
      const { id, previewId } = monitors[i % 3]!;
      const schedule = { timezone: 'UTC', hours: { from: i % 12, to: (i % 12) + 8 } };
      return patchMonitor(t.app, token, id, { schedule, expected_version: 1, preview_id: previewId });
    }),
  );
  const statuses = responses.map((r) => r.statusCode).sort();
  assert.deepEqual(
    [statuses.filter((s) => s === 200).length, statuses.filter((s) => s === 409).length],
    [3, 27],
    responses.map((r) => r.body).join('\n'),
  );
  assert.ok(responses.every((r) => r.statusCode === 200 || r.json().error.code === 'version_conflict'));
  for (const { id } of monitors) {
    const winner = responses.find((r) => r.statusCode === 200 && r.json().data.id === id)!.json().data;
    const stored = (await getMonitor(token, id)).json().data;
    assert.deepEqual(stored.schedule, winner.schedule);
    assert.equal(stored.config_version, 2);
    assert.equal(stored.next_check_at, winner.next_check_at);
  }
});
