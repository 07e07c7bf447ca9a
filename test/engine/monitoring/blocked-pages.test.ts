import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { bearer, createAccountWithToken, startTestApp, type TestApp } from '../../helpers/test-app.ts';
import { startFixtureServer, type FixtureServer } from '../../helpers/fixture-server.ts';
import { insertMonitorRow } from '../../helpers/monitor-rows.ts';
import { shopHtml, INITIAL_SHOP } from '../../helpers/shop-page.ts';
import { checkDueMonitor, startTestEngine } from '../../helpers/test-engine.ts';
import { TITLE } from '../../helpers/watched-page.ts';
import { extractionJobsSent } from '../../helpers/extraction-jobs-sent.ts';
import type { SteppedEngine } from '../../../src/engine/scheduler.ts';

// Anti-bot walls on stored monitors (DESIGN §4 Blocked pages): a challenge or
// block page is the check issue `blocked` with its reason, never content and
// never a change; it fails the check, so it counts toward monitor.failing, and
// the host is left alone for a while like a throttling one.

const WALLS = join(import.meta.dirname, '../../fixtures/site/walls');
const wall = (name: string) => readFileSync(join(WALLS, name), 'utf8');

let t: TestApp;
let engine: SteppedEngine;
before(async () => {
  t = await startTestApp();
  engine = startTestEngine(t);
});
after(async () => {
  await engine.stop();
  await t.close();
});

type Answer = { status: number; body: string; headers?: Record<string, string> };

/** A monitor of a page whose answer the test sets, on a server of its own (backoff is kept per host). */
async function watchedSite(loadMode: 'html' | 'browser' = 'html') {
  const site: FixtureServer = await startFixtureServer();
  let answer: Answer = { status: 200, body: shopHtml(INITIAL_SHOP) };
  site.route('/product.html', (_req, res) => {
    res.writeHead(answer.status, { 'content-type': 'text/html; charset=utf-8', ...answer.headers });
    res.end(answer.body);
  });
  const account = await createAccountWithToken(t.app);
  await t.db.query("UPDATE monitors SET status = 'paused'");
  const id = await insertMonitorRow(t.db, {
    accountId: account.accountId,
    url: `${site.url}/product.html`,
    targets: [TITLE],
    nextCheckAt: t.clock.now(),
    loadMode,
    emailEnabled: true,
  });
  const check = async (next: Answer) => {
    answer = next;
    await checkDueMonitor(t, engine, id);
  };
  const issues = async () => {
    const [row] = await t.db.query<{ last_issues: { code: string; message: string }[] }>(
      'SELECT last_issues FROM check_state WHERE monitor_id = $1',
      [id],
    );
    return row!.last_issues;
  };
  const changes = async () =>
    Number((await t.db.query<{ n: string }>('SELECT count(*) AS n FROM changes WHERE monitor_id = $1', [id]))[0]!.n);
  const monitor = async () =>
    (await t.app.inject({ method: 'GET', url: `/api/v1/monitors/${id}`, headers: bearer(account.token) })).json().data;
  return { site, id, check, issues, changes, monitor };
}

test('a challenge page served with 200 is the check issue blocked with its reason, never a change, and the baseline stays', async () => {
  const w = await watchedSite();
  try {
    await w.check({ status: 200, body: shopHtml(INITIAL_SHOP) });
    await w.check({ status: 200, body: wall('cloudflare-challenge.html') });
    const [blocked, backoff] = await w.issues();
    assert.equal(blocked?.code, 'blocked');
    assert.match(blocked?.message ?? '', /^the site blocked the check: a Cloudflare challenge page \(HTTP 200\)$/);
    assert.equal(backoff?.code, 'site_backoff', 'the host is left alone for a while');
    assert.match(backoff?.message ?? '', /the site blocked the check/);
    assert.equal(await w.changes(), 0, 'the wall is no change');
    const [run] = await t.db.query<{ outcome: string }>('SELECT outcome FROM check_runs WHERE monitor_id = $1 ORDER BY seq DESC LIMIT 1', [
      w.id,
    ]);
    assert.equal(run?.outcome, 'failed');

    await w.check({ status: 200, body: shopHtml(INITIAL_SHOP) });
    assert.deepEqual(await w.issues(), []);
    assert.equal(await w.changes(), 0, 'the page as before the wall is no change either: the baseline was kept');
  } finally {
    await w.site.close();
  }
});

test("a check's page is screened for a wall in the same extraction job that reads its targets: one hand-over to the threads", async () => {
  const w = await watchedSite();
  try {
    const sent = async () => [await extractionJobsSent(t, 'check'), await extractionJobsSent(t, 'screen')];
    const [checksBefore, screensBefore] = await sent();
    await w.check({ status: 200, body: shopHtml(INITIAL_SHOP) });
    assert.deepEqual(await sent(), [checksBefore! + 1, screensBefore]);
    await w.check({ status: 200, body: wall('cloudflare-challenge.html') });
    assert.deepEqual(await sent(), [checksBefore! + 2, screensBefore]);
    assert.equal((await w.issues())[0]?.code, 'blocked');
  } finally {
    await w.site.close();
  }
});

test('walls served with 403, 429 and 503, and a cf-mitigated challenge header, are blocked; a plain 403 stays http_status', async () => {
  const w = await watchedSite();
  try {
    await w.check({ status: 200, body: shopHtml(INITIAL_SHOP) });
    const cases: [Answer, string][] = [
      [{ status: 403, body: wall('datadome-captcha.html') }, 'the site blocked the check: a DataDome captcha page (HTTP 403)'],
      [{ status: 429, body: wall('recaptcha-wall.html') }, 'the site blocked the check: a captcha page (HTTP 429)'],
      [{ status: 503, body: wall('akamai-denied.html') }, 'the site blocked the check: an Akamai access-denied page (HTTP 503)'],
      [
        { status: 403, body: '', headers: { 'cf-mitigated': 'challenge' } },
        'the site blocked the check: a Cloudflare challenge (cf-mitigated: challenge) (HTTP 403)',
      ],
    ];
    for (const [answer, message] of cases) {
      await w.check(answer);
      assert.deepEqual((await w.issues())[0], { target_id: null, code: 'blocked', message });
    }
    await w.check({ status: 403, body: '<html><title>Forbidden</title><body><h1>Forbidden</h1></body></html>' });
    assert.equal((await w.issues())[0]?.code, 'http_status');
    assert.equal(await w.changes(), 0);
  } finally {
    await w.site.close();
  }
});

test('blocked checks count toward monitor.failing: three in a row make the monitor failing, a loaded page recovers it', async () => {
  const w = await watchedSite();
  try {
    await w.check({ status: 200, body: shopHtml(INITIAL_SHOP) });
    await w.check({ status: 200, body: wall('perimeterx-block.html') });
    await w.check({ status: 403, body: wall('cloudflare-block.html') });
    assert.equal((await w.monitor()).failing_since, null, 'two are not yet failing');
    await w.check({ status: 200, body: wall('checking-browser.html') });
    assert.equal((await w.monitor()).failing_since, t.clock.now().toISOString());
    const [event] = await t.db.query<{ event: string }>(
      "SELECT event FROM notification_outbox WHERE monitor_id = $1 AND event = 'monitor.failing'",
      [w.id],
    );
    assert.equal(event?.event, 'monitor.failing');
    await w.check({ status: 200, body: shopHtml(INITIAL_SHOP) });
    assert.equal((await w.monitor()).failing_since, null);
  } finally {
    await w.site.close();
  }
});

test('browser mode: a wall rendered by Chromium is blocked too, a 403 wall and a 200 one', async () => {
  const w = await watchedSite('browser');
  try {
    await w.check({ status: 200, body: shopHtml(INITIAL_SHOP) });
    assert.deepEqual(await w.issues(), []);
    await w.check({ status: 403, body: wall('perimeterx-block.html') });
    assert.deepEqual((await w.issues())[0], {
      target_id: null,
      code: 'blocked',
      message: 'the site blocked the check: a PerimeterX (HUMAN) challenge page (HTTP 403)',
    });
    await w.check({ status: 200, body: wall('hcaptcha-wall.html') });
    assert.equal((await w.issues())[0]?.message, 'the site blocked the check: a captcha page (HTTP 200)');
    assert.equal(await w.changes(), 0);
  } finally {
    await w.site.close();
  }
});
