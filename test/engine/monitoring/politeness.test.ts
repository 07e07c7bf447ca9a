import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { nextDueAt, stableOffsetSeconds } from '../../../src/domain/schedule.ts';
import { bearer, createAccountWithToken, startTestApp, type TestApp } from '../../helpers/test-app.ts';
import { startFixtureServer } from '../../helpers/fixture-server.ts';
import { insertMonitorRow, nextCheckAt } from '../../helpers/monitor-rows.ts';
import { shopHtml, INITIAL_SHOP } from '../../helpers/shop-page.ts';
import { advanceToDue, startTestEngine } from '../../helpers/test-engine.ts';
import { TITLE, watchPage } from '../../helpers/watched-page.ts';
import type { SteppedEngine } from '../../../src/engine/scheduler.ts';

type WatchedPage = Awaited<ReturnType<typeof watchPage>>;

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

type Issues = { code: string }[];
const lastIssues = async (id: string) => {
  const [row] = await t.db.query<{ last_issues: Issues }>('SELECT last_issues FROM check_state WHERE monitor_id = $1', [id]);
  assert.ok(row);
  return row.last_issues.map((i) => i.code);
};

test('a site answering 503 with Retry-After is left alone until then, and the skipped check is an issue', async () => {
  // A server of its own: backoff is kept per host.
  const site = await startFixtureServer();
  let throttled = true;
  site.route('/busy.html', (_req, res) => {
    res.writeHead(throttled ? 503 : 200, { 'content-type': 'text/html', 'retry-after': '7200' });
    res.end(shopHtml(INITIAL_SHOP));
  });
  const engine = startTestEngine(t);
  try {
    const { accountId } = await createAccountWithToken(t.app);
    await t.db.query("UPDATE monitors SET status = 'paused'");
    const id = await insertMonitorRow(t.db, {
      accountId,
      url: `${site.url}/busy.html`,
      targets: [TITLE],
      nextCheckAt: t.clock.now(),
      intervalMinutes: 60,
    });
    await engine.runCycle();
    assert.deepEqual(await lastIssues(id), ['http_status', 'site_backoff']);
    const [backoff] = await t.db.query<{ until: Date }>('SELECT until FROM host_backoff WHERE host = $1', [`127.0.0.1:${site.port}`]);
    assert.ok(backoff);
    const { until } = backoff;
    assert.equal(until.getTime() - t.clock.now().getTime(), 7200_000);

    await advanceToDue(t, id);
    const skipped = await engine.runCycle();
    assert.deepEqual(skipped.claimed, []);
    assert.equal(site.hits.get('/busy.html'), 1, 'no request while backed off');
    assert.deepEqual(await lastIssues(id), ['site_backoff']);
    assert.ok((await nextCheckAt(t.db, id)) > until, 'the next check falls after the backoff');

    throttled = false;
    await advanceToDue(t, id);
    await engine.runCycle();
    assert.equal(site.hits.get('/busy.html'), 2);
    assert.deepEqual(await lastIssues(id), []);
    assert.equal((await t.db.query('SELECT 1 FROM host_backoff')).length, 0, 'a normal answer clears the backoff');
  } finally {
    await engine.stop();
    await site.close();
  }
});

test('no more than the per-host limit of checks of one site run at once', async () => {
  const site = await startFixtureServer();
  const engine = startTestEngine(t, { concurrency: 10, hostConcurrency: 2 });
  try {
    const { accountId } = await createAccountWithToken(t.app);
    await t.db.query("UPDATE monitors SET status = 'paused'");
    for (let i = 0; i < 5; i++) {
      await insertMonitorRow(t.db, {
        accountId,
        url: `${site.url}/shop/espresso.html?v=${i}`,
        targets: [TITLE],
        nextCheckAt: t.clock.now(),
      });
    }
    const claims = await engine.claim();
    assert.equal(claims.length, 2);
    for (const item of claims) await engine.run(item);
    assert.equal((await engine.claim()).length, 2, 'slots free up when checks end');
  } finally {
    await engine.stop();
    await site.close();
  }
});

/** A page checked once by a fresh engine, and its next due time; cleans up after `body`. */
async function withCheckedPage(body: (engine: SteppedEngine, page: WatchedPage, due: Date) => Promise<void>): Promise<void> {
  const site = await startFixtureServer();
  const engine = startTestEngine(t);
  try {
    const { accountId } = await createAccountWithToken(t.app);
    const page = await watchPage(t, site, engine, { accountId });
    await page.check();
    await body(engine, page, await nextCheckAt(t.db, page.monitorId));
  } finally {
    await engine.stop();
    await site.close();
  }
}

test('after a downtime overdue monitors are spread over their interval instead of checked all at once', async () => {
  await withCheckedPage(async (engine, page, due) => {
    t.clock.set(new Date(due.getTime() + 3 * 3600_000));
    assert.deepEqual((await engine.runCycle()).claimed, []);
    const replaced = await nextCheckAt(t.db, page.monitorId);
    assert.deepEqual(replaced, nextDueAt(due, 60, stableOffsetSeconds(page.monitorId, 60), t.clock.now()));
    assert.ok(replaced > t.clock.now());
    await page.check();
  });
});

test('a monitor a little over one cycle late is still checked, not moved to its next slot', async () => {
  await withCheckedPage(async (engine, _page, due) => {
    t.clock.set(new Date(due.getTime() + 1.5 * t.config.tickSeconds * 1000));
    const report = await engine.runCycle();
    assert.equal(report.claimed.length, 1);
  });
});

test('monitors of one account due together share what is left of the allowance: the first are checked, the rest skipped', async () => {
  const small = await startTestApp({ plans: { pro: { checks_per_month: { html: 3 } } } });
  const site = await startFixtureServer();
  site.route('/page.html', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(shopHtml(INITIAL_SHOP));
  });
  const engine = startTestEngine(small);
  try {
    const { accountId, token } = await createAccountWithToken(small.app);
    const ids = [];
    for (let i = 0; i < 5; i++) {
      ids.push(
        await insertMonitorRow(small.db, {
          accountId,
          url: `${site.url}/page.html?m=${i}`,
          targets: [TITLE],
          nextCheckAt: small.clock.now(),
        }),
      );
    }
    // The per-host limit lets only some run in one cycle; all five are due until each is served or skipped.
    let claimed = 0;
    for (let cycle = 0; cycle < 5; cycle++) claimed += (await engine.runCycle()).claimed.length;
    assert.equal(claimed, 3);
    const issues = await Promise.all(
      ids.map(async (id) => {
        const [row] = await small.db.query<{ last_issues: Issues }>('SELECT last_issues FROM check_state WHERE monitor_id = $1', [id]);
        return row!.last_issues.map((i) => i.code).join(',');
      }),
    );
    assert.equal(issues.filter((codes) => codes === 'allowance_exhausted').length, 2);
    const usage = await small.app.inject({ method: 'GET', url: '/api/v1/usage', headers: bearer(token) });
    assert.equal(usage.json().data.checks.html.used, 3);
  } finally {
    await engine.stop();
    await site.close();
    await small.close();
  }
});

test('an exhausted monthly check allowance skips checks with an issue and never charges beyond it', async () => {
  const small = await startTestApp({ plans: { pro: { checks_per_month: { html: 3 } } } });
  const site = await startFixtureServer();
  const engine = startTestEngine(small);
  try {
    const { accountId, token } = await createAccountWithToken(small.app);
    const page = await watchPage(small, site, engine, { accountId });
    for (const title of ['A', 'B', 'C']) await page.check({ title });
    page.setPage({ title: 'D' });
    await advanceToDue(small, page.monitorId);
    const report = await engine.runCycle();
    assert.deepEqual(report.claimed, []);
    const [row] = await small.db.query<{ last_issues: Issues }>('SELECT last_issues FROM check_state WHERE monitor_id = $1', [
      page.monitorId,
    ]);
    assert.ok(row);
    assert.deepEqual(
      row.last_issues.map((i) => i.code),
      ['allowance_exhausted'],
    );
    assert.equal(site.hits.get(page.path), 3);
    const usage = await small.app.inject({ method: 'GET', url: '/api/v1/usage', headers: bearer(token) });
    assert.deepEqual([usage.json().data.checks.html.used, usage.json().data.checks.html.limit], [3, 3]);
  } finally {
    await engine.stop();
    await site.close();
    await small.close();
  }
});
