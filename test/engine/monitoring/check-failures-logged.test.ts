import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import pino from 'pino';
import { createAccountWithToken, type TestApp } from '../../helpers/test-app.ts';
import type { FixtureServer } from '../../helpers/fixture-server.ts';
import { useMonitoringWorld } from '../../helpers/monitoring-world.ts';
import { insertMonitorRow } from '../../helpers/monitor-rows.ts';
import { startTestEngine } from '../../helpers/test-engine.ts';
import { TITLE, watchPage } from '../../helpers/watched-page.ts';

// Failures the engine goes on after are not silent: a diff that cannot be
// stored is logged and counted; an exception a check did not expect is logged
// with its stack and counted, and the check is still recorded as failed (last:
// it closes the extraction pool).
let t: TestApp, site: FixtureServer;
useMonitoringWorld({}, (w) => ({ t, site } = w));

type LogLine = { level: number; msg: string; err?: { type: string; stack: string }; changeIds?: string[]; monitorId?: string };

function loggingEngine() {
  const lines: LogLine[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (line) lines.push(JSON.parse(line) as LogLine);
      done();
    },
  });
  const engine = startTestEngine(t, { logger: pino({ level: 'warn' }, sink), metrics: t.metrics });
  return { engine, lines };
}

const counted = async (counter: { get(): Promise<{ values: { value: number }[] }> }) => (await counter.get()).values[0]?.value ?? 0;

test('a diff that cannot be stored when its change is recorded is logged as a warning with the change id, and counted', async () => {
  const { accountId } = await createAccountWithToken(t.app);
  const { engine, lines } = loggingEngine();
  const page = await watchPage(t, site, engine, { accountId });
  await page.check();
  await t.db.exec('ALTER TABLE change_diffs ADD CONSTRAINT refuse_every_diff CHECK (false) NOT VALID');
  try {
    await page.check({ title: 'After' });
  } finally {
    await t.db.exec('ALTER TABLE change_diffs DROP CONSTRAINT refuse_every_diff');
  }
  const [change] = await t.db.query<{ id: string }>('SELECT id FROM changes WHERE monitor_id = $1', [page.monitorId]);
  assert.ok(change, 'the change is recorded');
  const logged = lines.find((line) => line.changeIds?.includes(change.id));
  assert.equal(logged?.level, 40, 'logged as a warning');
  assert.match(logged?.err?.stack ?? '', /refuse_every_diff/);
  assert.equal(await counted(t.metrics.diffStoreFailures), 1);
});

test('an unexpected exception in a check is logged with its stack, counted, and the check is recorded as failed', async () => {
  const { accountId } = await createAccountWithToken(t.app);
  await t.db.query("UPDATE monitors SET status = 'paused'");
  const monitorId = await insertMonitorRow(t.db, {
    accountId,
    url: `${site.url}/shop/espresso.html`,
    targets: [TITLE],
    nextCheckAt: t.clock.now(),
  });
  const { engine, lines } = loggingEngine();
  // Loaders and extraction report page problems as values; a closed extraction pool is a failure no check expects.
  await t.loaders.extraction.close();

  const report = await engine.runCycle();
  assert.deepEqual(
    report.outcomes.map((o) => o.outcome),
    ['recorded'],
  );
  const [state] = await t.db.query<{ consecutive_failures: number; last_issues: { code: string }[] }>(
    'SELECT consecutive_failures, last_issues FROM check_state WHERE monitor_id = $1',
    [monitorId],
  );
  assert.equal(state?.consecutive_failures, 1);
  assert.equal(state?.last_issues[0]?.code, 'fetch_failed');
  const logged = lines.find((line) => line.msg === 'unexpected exception in a check');
  assert.equal(logged?.level, 50, 'logged as an error');
  assert.equal(logged?.monitorId, monitorId);
  assert.match(logged?.err?.stack ?? '', /the extraction pool is closed\n\s+at /, 'with its stack');
  assert.equal(await counted(t.metrics.checkExceptions), 1);
});
