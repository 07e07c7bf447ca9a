import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { markSkipped } from '../../src/store/deliveries-store.ts';
import { digestSkipReason } from '../../src/store/digests-store.ts';
import { startMailCatcher, type MailCatcher } from '../helpers/mail-catcher.ts';
import { insertNotifiedChange, insertNotifyingMonitor } from '../helpers/notification-rows.ts';
import { baseEnv, waitUntil, type ProcessGroup } from '../helpers/pagewatch-process.ts';
import type { SharedSchema } from '../helpers/shared-schema.ts';
import { SHARED_WORLD_SKIP as SKIP, useSharedWorld } from '../helpers/shared-world.ts';

// kill -9 of a worker in the middle of sending daily digests (DESIGN §8
// Digests): the other worker sends each digest once the dead worker's lease
// runs out (PAGEWATCH_LEASE_SECONDS), one mail per recipient, with every
// change the digest gathered.

const LEASE_SECONDS = 6;
const RECIPIENTS = ['digest-a@example.com', 'digest-b@example.com'];
const CHANGES_EACH = 3;
const DAY_MS = 24 * 3600 * 1000;

let shared: SharedSchema, group: ProcessGroup, smtp: MailCatcher;
useSharedWorld({}, (w) => ({ shared, group } = w));
before(async () => (smtp = await startMailCatcher()));
after(() => smtp.close());

/**
 * An account whose change emails come as a daily digest, with changes whose emails were queued two days ago and
 * already set aside for the digest, as the dispatcher leaves them: a worker that set them aside while its
 * housekeeping queued the digest would send the ones it had not reached yet with the next period's digest
 * (queueDigest), which is not what this test is about.
 */
async function accountWithWaitingChanges(email: string): Promise<{ accountId: string; afters: string[] }> {
  const [account] = await shared.db.query<{ id: string }>(
    `INSERT INTO accounts (id, email, plan, email_mode, created_at, updated_at)
     VALUES (gen_random_uuid(), $1, 'pro', 'daily', now(), now()) RETURNING id`,
    [email],
  );
  const accountId = account!.id;
  // Queued before the last daily boundary, whatever the hour: the period's digest is due at once.
  const writer = { db: shared.db, clock: { now: () => new Date(Date.now() - 2 * DAY_MS) } };
  const monitorId = await insertNotifyingMonitor(writer, { accountId, emailEnabled: true });
  const afters: string[] = [];
  for (let i = 0; i < CHANGES_EACH; i++) {
    const display = `${email} price ${i}`;
    const { outbox } = await insertNotifiedChange(writer, {
      accountId,
      monitorId,
      channels: ['email'],
      after: { value: 1000 + i, display },
    });
    await markSkipped(shared.db, outbox.email, digestSkipReason('daily'), writer.clock.now());
    afters.push(display);
  }
  return { accountId, afters };
}

const digestRows = (accountIds: string[]) =>
  shared.db.query<{ id: string; account_id: string; status: string }>(
    "SELECT id, account_id, status FROM notification_outbox WHERE account_id = ANY($1) AND event = 'digest.daily'",
    [accountIds],
  );

test(
  'a worker killed with -9 while sending digests: the other sends each once after the lease runs out, with every change it gathered',
  { skip: SKIP },
  async () => {
    const env = baseEnv({
      DATABASE_URL: shared.url,
      PAGEWATCH_TICK_SECONDS: '1',
      PAGEWATCH_LEASE_SECONDS: String(LEASE_SECONDS),
      PAGEWATCH_SMTP_URL: smtp.url,
    });
    const accounts = [];
    for (const email of RECIPIENTS) accounts.push(await accountWithWaitingChanges(email));
    const accountIds = accounts.map((a) => a.accountId);

    // worker-a queues each account's digest and is held mid-send.
    smtp.hold();
    const doomed = await group.start('worker', 'worker-a', env);
    const leasedDigests = async () =>
      (
        await shared.db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM notification_outbox
           WHERE account_id = ANY($1) AND event = 'digest.daily' AND status = 'pending' AND lease_token IS NOT NULL`,
          [accountIds],
        )
      )[0]!.n;
    // Every digest worker-a claimed is in the middle of its send (a claim's round waits for all its sends).
    await waitUntil(
      'worker-a sending every digest it holds',
      async () => (await digestRows(accountIds)).length === RECIPIENTS.length && smtp.held > 0 && (await leasedDigests()) === smtp.held,
      60_000,
    );
    assert.equal(smtp.mails.length, 0);

    doomed.child.kill('SIGKILL');
    await doomed.exited;
    await waitUntil('worker-a’s mail sessions gone', () => smtp.held === 0);
    smtp.release();
    const survivor = await group.start('worker', 'worker-b', env);

    // A deadline of the lease plus a margin, started at the kill.
    await waitUntil(
      'both digests delivered',
      async () => (await digestRows(accountIds)).every((d) => d.status === 'delivered'),
      (LEASE_SECONDS + 20) * 1000,
    );
    assert.deepEqual(
      smtp.mails.map((m) => m.to).sort(),
      RECIPIENTS.map((r) => [r]),
      'one mail per recipient',
    );
    for (const { afters } of accounts) {
      const mail = smtp.mails.find((m) => m.text.includes(afters[0]!))!;
      assert.equal(mail.headers.get('subject'), `[pagewatch] daily digest: ${CHANGES_EACH} changes`);
      for (const after of afters) assert.ok(mail.text.includes(after), `the digest lists ${after}`);
    }
    const digests = await digestRows(accountIds);
    assert.equal(digests.length, RECIPIENTS.length, 'one digest per account');
    const gathered = await shared.db.query<{ account_id: string; digest_id: string | null }>(
      "SELECT account_id, digest_id FROM notification_outbox WHERE account_id = ANY($1) AND event <> 'digest.daily'",
      [accountIds],
    );
    const digestOf = new Map(digests.map((d) => [d.account_id, d.id]));
    assert.equal(gathered.length, RECIPIENTS.length * CHANGES_EACH);
    assert.ok(
      gathered.every((row) => row.digest_id === digestOf.get(row.account_id)),
      'every change email is in its account’s digest',
    );
    assert.equal(await survivor.metric('pagewatch_notification_deliveries_total', { channel: 'email', outcome: 'delivered' }), 2);
  },
);
