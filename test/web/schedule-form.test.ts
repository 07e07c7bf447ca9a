import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type TestApp } from '../helpers/test-app.ts';
import type { FixtureServer } from '../helpers/fixture-server.ts';
import { useMonitoringWorld } from '../helpers/monitoring-world.ts';
import { createOwner, previewThroughForm, signedIn, TITLE_FIELDS, type DashboardClient } from '../helpers/dashboard-client.ts';

// The dashboard's monitor form carries the schedule (issue #41): days and
// hours or a cron expression in a time zone, with jitter; the API's
// validation refuses what it refuses, shown on the form.

let t: TestApp, site: FixtureServer;
useMonitoringWorld({}, (w) => ({ t, site } = w));

let n = 0;

async function previewForm(client: DashboardClient): Promise<string> {
  const location = await previewThroughForm(client, t.clock, `${site.url}/shop/espresso.html?form=${++n}`);
  await client.get(location);
  return location;
}

test('the form creates a monitor checked on chosen days and hours in a time zone, and its page says so', async () => {
  const { email } = await createOwner(t.app);
  const client = await signedIn(t.app, email);
  const location = await previewForm(client);
  const form = await client.get(location);
  assert.match(form.body, /<input type="radio" id="schedule-always" name="schedule" value="always" checked>/);
  const created = await client.post(location, {
    ...TITLE_FIELDS,
    schedule: 'hours',
    days: ['mon', 'wed', 'fri'],
    hours_from: '22',
    hours_to: '6',
    timezone: 'Europe/Berlin',
    jitter_seconds: '90',
    action: 'create',
    idempotency_key: `schedule-form-${n}`,
  });
  assert.equal(created.statusCode, 303, created.body.slice(0, 2000));
  const id = (created.headers.location as string).split('?')[0]!.split('/').pop()!;
  const [row] = await t.db.query<{ schedule: unknown }>('SELECT schedule FROM monitors WHERE id = $1', [id]);
  assert.deepEqual(row!.schedule, {
    timezone: 'Europe/Berlin',
    days: ['mon', 'wed', 'fri'],
    hours: { from: 22, to: 6 },
    jitter_seconds: 90,
  });
  const page = await client.get(`/monitors/${id}`);
  assert.match(page.body, /<dt>Schedule<\/dt><dd>Mon, Wed, Fri 22:00–6:00 \(Europe\/Berlin\), jitter up to 90 s<\/dd>/);
});

test('a cron expression firing more often than the plan allows is refused on the form with the reason', async () => {
  const { email } = await createOwner(t.app);
  const client = await signedIn(t.app, email);
  const location = await previewForm(client);
  const refused = await client.post(location, {
    ...TITLE_FIELDS,
    schedule: 'cron',
    cron: '* * * * *',
    timezone: 'UTC',
    action: 'create',
    idempotency_key: `schedule-form-cron-${n}`,
  });
  assert.equal(refused.statusCode, 422);
  assert.match(refused.body, /fires 1 minutes apart; the plan&#39;s minimum interval is 5/);
  assert.match(
    refused.body,
    /<input type="radio" id="schedule-cron" name="schedule" value="cron" checked>/,
    'the form keeps what was chosen',
  );
});
