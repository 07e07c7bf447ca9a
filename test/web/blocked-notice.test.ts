import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { insertMonitorRow } from '../helpers/monitor-rows.ts';
import { TITLE } from '../helpers/watched-page.ts';
import { createOwner, signedIn } from '../helpers/dashboard-client.ts';

// A monitor whose latest check met an anti-bot wall says so on its dashboard
// page in words, with what the owner can try, not only as an issue code.

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

test('the monitor page says the site blocked the check, why, and what the user can try', async () => {
  const { accountId, email } = await createOwner(t.app);
  const id = await insertMonitorRow(t.db, { accountId, url: 'https://shop.example/walled', targets: [TITLE], nextCheckAt: t.clock.now() });
  const client = await signedIn(t.app, email);
  assert.doesNotMatch((await client.get(`/monitors/${id}`)).body, /blocked the check/, 'nothing to say before a wall');
  const issues = [{ target_id: null, code: 'blocked', message: 'the site blocked the check: a DataDome captcha page (HTTP 403)' }];
  await t.db.query('UPDATE check_state SET last_issues = $2::jsonb WHERE monitor_id = $1', [id, JSON.stringify(issues)]);
  const page = (await client.get(`/monitors/${id}`)).body;
  assert.match(
    page,
    /<strong>The site blocked the check\.<\/strong> It answered with an anti-bot page instead of the page \(a DataDome captcha page \(HTTP 403\)\)/,
  );
  assert.match(page, /What you can try: a longer interval[^<]*browser mode[^<]*a proxy/);
  assert.match(page, /<code>blocked<\/code>: the site blocked the check: a DataDome captcha page/);
});
