import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { createLogger } from '../../../src/http/logger.ts';
import type { SteppedEngine } from '../../../src/engine/scheduler.ts';
import { admin, createAccountWithToken, type TestApp } from '../../helpers/test-app.ts';
import type { FixtureServer } from '../../helpers/fixture-server.ts';
import type { MailCatcher } from '../../helpers/mail-catcher.ts';
import { useNotifyingWorld } from '../../helpers/notifying-world.ts';
import { testDispatcher } from '../../helpers/notification-rows.ts';
import { startTestEngine } from '../../helpers/test-engine.ts';
import { PRICE, watchPage } from '../../helpers/watched-page.ts';
import type { WebhookReceiver } from '../../helpers/webhook-receiver.ts';

// At LOG_LEVEL=info the log tells what the engine and the notifications did:
// one line per completed check, recorded change, monitor that starts failing
// or recovers, and notification delivered or given up on, each with its ids.

let t: TestApp, site: FixtureServer, smtp: MailCatcher, receiver: WebhookReceiver;
useNotifyingWorld({}, (w) => ({ t, site, smtp, receiver } = w));

type Line = Record<string, unknown> & { msg: string; level: number };

/** The process's logger at info, writing into `lines`. */
function capturedLogger() {
  const lines: Line[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(
        ...String(chunk)
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as Line),
      );
      done();
    },
  });
  return { logger: createLogger('info', sink), lines };
}

async function loggedWorld(path: string) {
  const { logger, lines } = capturedLogger();
  const engine: SteppedEngine = startTestEngine(t, { logger });
  const account = await createAccountWithToken(t.app);
  await admin(t.app, 'PATCH', `/accounts/${account.accountId}`, { webhook_url: `${receiver.url}${path}` });
  const page = await watchPage(t, site, engine, {
    accountId: account.accountId,
    targets: [PRICE],
    emailEnabled: true,
    webhookEnabled: true,
  });
  const ids = { account_id: account.accountId, monitor_id: page.monitorId };
  const said = (msg: string) => lines.filter((l) => l.msg === msg);
  return { engine, logger, lines, page, ids, said };
}

test('each completed check is one info line with its account, monitor and check ids and its outcome', async () => {
  const w = await loggedWorld('/log-checks');
  await w.page.check();
  const [line, ...more] = w.said('check completed');
  assert.equal(more.length, 0);
  const { level, account_id, monitor_id, outcome, http_status, issues, changes } = line!;
  assert.deepEqual(
    { level, account_id, monitor_id, outcome, http_status, issues, changes },
    { level: 30, ...w.ids, outcome: 'ok', http_status: 200, issues: [], changes: 0 },
  );
  assert.match(String(line?.check_id), /^[0-9a-f-]{36}$/);
});

test('a recorded change is one info line naming the change, its check, monitor and account', async () => {
  const w = await loggedWorld('/log-changes');
  await w.page.check();
  await w.page.check({ price: '€19.00' });
  const check = w.said('check completed').at(-1)!;
  const [change, ...more] = w.said('change recorded');
  assert.equal(more.length, 0);
  const stored = await t.db.query<{ id: string }>('SELECT id FROM changes WHERE monitor_id = $1', [w.page.monitorId]);
  assert.deepEqual(
    { account_id: change?.account_id, monitor_id: change?.monitor_id, check_id: change?.check_id, change_id: change?.change_id },
    { ...w.ids, check_id: check.check_id, change_id: stored[0]!.id },
  );
  assert.equal(check.changes, 1);
});

test('a monitor that starts failing, and one that recovers, is one info line each', async () => {
  const w = await loggedWorld('/log-failing');
  await w.page.check();
  for (let i = 0; i < 3; i++) await w.page.check({ price: '' });
  const failing = w.said('monitor failing');
  assert.equal(failing.length, 1);
  assert.equal(failing[0]!.monitor_id, w.page.monitorId);
  assert.equal(failing[0]!.consecutive_failures, 3);
  assert.equal(w.said('check completed').at(-1)!.outcome, 'issues');
  await w.page.check({ price: '€29.00' });
  const recovered = w.said('monitor recovered');
  assert.equal(recovered.length, 1);
  assert.deepEqual([recovered[0]!.account_id, recovered[0]!.monitor_id], [w.ids.account_id, w.ids.monitor_id]);
  assert.equal(recovered[0]!.failing_since, failing[0]!.failing_since);
});

test('a delivered notification is one info line with its delivery id; one given up on is a warning with the reason', async () => {
  const w = await loggedWorld('/log-deliveries');
  await w.page.check();
  const dispatcher = testDispatcher(t, { logger: w.logger });
  // What earlier tests queued goes first, so that the round below sends this change's notifications alone.
  await dispatcher.runOnce();
  w.lines.length = 0;
  await w.page.check({ price: '€19.00' });
  // The mail server refuses the email for good; the webhook is delivered.
  smtp.refuse(550);
  const reports = await dispatcher.runOnce();
  const byChannel = Object.fromEntries(reports.map((r) => [r.channel, r]));
  const [delivered, ...moreDelivered] = w.said('notification delivered');
  assert.equal(moreDelivered.length, 0);
  assert.equal(delivered?.level, 30);
  assert.equal(delivered?.delivery_id, byChannel.webhook?.id);
  assert.equal(delivered?.channel, 'webhook');
  assert.equal(delivered?.event, 'change.detected');
  assert.deepEqual([delivered?.account_id, delivered?.monitor_id], [w.ids.account_id, w.ids.monitor_id]);
  assert.equal((delivered?.change_ids as string[]).length, 1);
  const [failed, ...moreFailed] = w.said('notification failed');
  assert.equal(moreFailed.length, 0);
  assert.equal(failed?.level, 40);
  assert.equal(failed?.delivery_id, byChannel.email?.id);
  assert.equal(failed?.account_id, w.ids.account_id);
  assert.match(String(failed?.error), /550/);
});
