import { performance } from 'node:perf_hooks';
import type { Clock } from '../clock.ts';
import { DEFAULT_CHECK_LEASE_SECONDS, type Config } from '../config.ts';
import type { ExtractionPool } from '../extraction/extraction-pool.ts';
import type { GuardPolicy, LookupFn } from '../fetch/ssrf/guard.ts';
import type { Metrics } from '../process-metrics.ts';
import type { Database } from '../store/database.ts';
import {
  claimDueDeliveries,
  insertAttempt,
  lockLeasedDelivery,
  renewDeliveryLeases,
  settleDelivery,
  type AccountNotice,
  type ClaimedDelivery,
  type DeliverySubject,
} from '../store/deliveries-store.ts';
import { changeDiffs } from '../services/change-diffs.ts';
import { composeEmail, webhookBody } from './monitor-event.ts';
import { createMailer } from './email-sender.ts';
import { prepareDelivery, type Destination, type Prepared, type SkipReason } from './prepare-delivery.ts';
import { composeMonitorsStoppedEmail } from './plan-stop-email.ts';
import { composeDigestEmail } from './digest-email.ts';
import { nextAttemptAt } from './retry-policy.ts';
import { composeChannelFailingEmail } from './channel-failing-email.ts';
import { findChannel, markChannelFailing } from '../store/channels-store.ts';
import { CHANNEL_FAILING_EVENT, enqueueAccountNotice, type NotificationChannel } from '../store/outbox-store.ts';
import type { SendResult } from './send-result.ts';
import { sendWebhook } from './webhook-sender.ts';
import { sendChannelMessage } from '../fetch/channels/channel-sender.ts';
import { channelMessage } from './channels/channel-message.ts';

// The delivery loop over the durable outbox. Each round leases due rows in a
// short transaction (FOR UPDATE SKIP LOCKED), so any number of processes can
// run it against one PostgreSQL. Leases are short and renewed by a heartbeat
// while the row is being sent, as the engine's are; a dispatcher that dies
// mid-send leaves a lease that runs out one lease after its last heartbeat,
// and the row is sent again by whoever claims it next.
// Delivery is therefore at least once, and the outbox row id is the stable
// webhook-id receivers de-duplicate on.
//
// Tests drive it one round at a time with runOnce() and a manual clock;
// `pagewatch serve` calls start() and stop().

export interface DispatcherLogger {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}

export interface DispatcherOptions {
  db: Database;
  clock: Clock;
  config: Pick<Config, 'plans' | 'publicUrl' | 'smtpUrl' | 'smtpFrom' | 'channelHostOverrides'>;
  policy: GuardPolicy;
  logger: DispatcherLogger;
  /** the extraction threads, which compute the diff of a change that has none stored yet */
  extraction: Pick<ExtractionPool, 'diff'>;
  /** DNS resolution for webhook endpoints; default the system resolver */
  lookup?: LookupFn;
  /** how long a claimed row stays with this dispatcher after its last heartbeat (PAGEWATCH_LEASE_SECONDS); default DEFAULT_DELIVERY_LEASE_SECONDS */
  leaseSeconds?: number;
  /** rows claimed per round */
  batchSize?: number;
  /** pause between rounds that found less than a full batch */
  pollMs?: number;
  /** webhook deadline; default 15 s (DESIGN §8) */
  webhookTimeoutMs?: number;
  /** where delivery outcomes are counted (the process's /metrics) */
  metrics?: Pick<Metrics, 'notificationDeliveries'>;
}

export type DeliveryOutcome = 'delivered' | 'retry' | 'failed' | 'skipped' | 'lease_lost';

export interface DeliveryReport {
  id: string;
  channel: NotificationChannel;
  outcome: DeliveryOutcome;
  reason?: SkipReason;
}

export interface Dispatcher {
  /** Claims due notifications once and sends them, waiting for every send. */
  runOnce(): Promise<DeliveryReport[]>;
  start(): void;
  /** Stops the loop and waits for the round under way. */
  stop(): Promise<void>;
}

export const DEFAULT_DELIVERY_LEASE_SECONDS = DEFAULT_CHECK_LEASE_SECONDS;
// Leases are renewed this many times per lease while their rows are being sent.
const HEARTBEATS_PER_LEASE = 3;
const DEFAULT_BATCH = 20;
const DEFAULT_POLL_MS = 5_000;

/** The ids a delivery's log line carries: the delivery (outbox row), its account, and what it was about. */
function deliveryIds(claim: ClaimedDelivery, prepared: Extract<Prepared, { kind: 'send' | 'notice' | 'digest' }>): object {
  const ids = { delivery_id: claim.id, channel: claim.channel };
  if (prepared.kind === 'notice') return { ...ids, account_id: prepared.notice.account.id, event: prepared.notice.event };
  if (prepared.kind === 'digest') {
    return {
      ...ids,
      account_id: prepared.digest.account.id,
      event: `digest.${prepared.digest.kind}`,
      change_ids: prepared.digest.changes.map((c) => c.id),
    };
  }
  const { subject } = prepared;
  const changeIds = subject.changes.map((c) => c.id);
  return {
    ...ids,
    account_id: subject.account.id,
    event: subject.event,
    monitor_id: subject.monitor.id,
    ...(changeIds.length > 0 ? { change_ids: changeIds } : {}),
  };
}

/**
 * Whether a chat message's final failure marks its channel failing: the
 * service refused the channel itself (no message to it will go through), or
 * the message kept failing until the retries ran out.
 */
function channelKeepsFailing(result: SendResult, gaveUp: boolean): boolean {
  return gaveUp || (result.outcome === 'failed' && result.channelRefused === true);
}

function composeNotice(notice: AccountNotice, publicUrl: string) {
  return notice.event === CHANNEL_FAILING_EVENT
    ? composeChannelFailingEmail(notice, publicUrl)
    : composeMonitorsStoppedEmail(notice, publicUrl);
}

export function createDispatcher(options: DispatcherOptions): Dispatcher {
  const { db, clock, config } = options;
  const batchSize = options.batchSize ?? DEFAULT_BATCH;
  const mailer = config.smtpUrl ? createMailer(config.smtpUrl, config.smtpFrom) : null;
  let timer: NodeJS.Timeout | null = null;
  let round: Promise<unknown> | null = null;
  let running = false;
  const leaseSeconds = options.leaseSeconds ?? DEFAULT_DELIVERY_LEASE_SECONDS;
  // Claimed rows not yet settled: the leases the heartbeat renews.
  const held = new Set<ClaimedDelivery>();
  let heartbeat: NodeJS.Timeout | null = null;
  let beating: Promise<void> | null = null;

  function renewHeld(): void {
    if (beating !== null || held.size === 0) return;
    beating = renewDeliveryLeases(db, [...held], new Date(clock.now().getTime() + leaseSeconds * 1000))
      .catch((err: unknown) => options.logger.error({ err }, 'delivery lease heartbeat failed'))
      .finally(() => (beating = null));
  }

  async function send(id: string, subject: DeliverySubject, destination: Destination): Promise<SendResult> {
    const diffs = await changeDiffs(
      { db, extraction: options.extraction, ticket: { account: subject.account.id, lane: 'check' } },
      subject.changes,
    );
    if (destination.channel === 'email') {
      // prepareDelivery skips email rows when no SMTP server is configured, so the mailer exists here.
      return mailer!.send(destination.to, composeEmail(subject, diffs, config.publicUrl));
    }
    if (destination.channel === 'chat') {
      return sendChannelMessage(
        {
          policy: options.policy,
          clock,
          hostOverrides: config.channelHostOverrides,
          lookup: options.lookup,
          timeoutMs: options.webhookTimeoutMs,
        },
        { url: destination.url, messageId: id },
        channelMessage(subject, diffs, config.publicUrl),
      );
    }
    return sendWebhook(
      { policy: options.policy, clock, lookup: options.lookup, timeoutMs: options.webhookTimeoutMs },
      { id, url: destination.url, secret: destination.secret, body: webhookBody(subject, diffs) },
    );
  }

  /** Records the attempt and moves the row on, if this dispatcher still holds it; a final failure says why, and whether retries ran out. */
  async function settle(
    claim: ClaimedDelivery,
    result: SendResult,
    durationMs: number,
  ): Promise<{ outcome: DeliveryOutcome; error?: string; gaveUp?: boolean }> {
    return db.transaction(async (tx) => {
      const row = await lockLeasedDelivery(tx, claim);
      const at = clock.now();
      const error = result.outcome === 'delivered' ? null : result.error;
      // The attempt happened even when the lease was lost meanwhile; the row may be gone with its change.
      await insertAttempt(tx, {
        outboxId: claim.id,
        at,
        responseStatus: result.responseStatus,
        durationMs,
        outcome: result.outcome,
        error,
      });
      if (row === null) return { outcome: 'lease_lost' };
      if (result.outcome !== 'retry') {
        await settleDelivery(tx, claim.id, { status: result.outcome, at, error });
        return { outcome: result.outcome, ...(error === null ? {} : { error }) };
      }
      const retryAt = nextAttemptAt({
        failedAttempts: row.attempts + 1,
        queuedAt: row.created_at,
        now: at,
        retryAfterSeconds: result.retryAfterSeconds,
      });
      if (retryAt === null) {
        const lastWord = `${result.error}; gave up after ${row.attempts + 1} attempts`;
        await settleDelivery(tx, claim.id, { status: 'failed', at, error: lastWord });
        return { outcome: 'failed', error: lastWord, gaveUp: true };
      }
      await settleDelivery(tx, claim.id, { status: 'pending', retryAt, error: result.error });
      return { outcome: 'retry' };
    });
  }

  // The channel is marked and the owner's email queued together, once: a second refusal finds it failing already.
  async function reportFailingChannel(accountId: string, channelId: string, error: string): Promise<void> {
    await db.transaction(async (tx) => {
      if (!(await markChannelFailing(tx, channelId))) return;
      const channel = await findChannel(tx, accountId, channelId);
      if (channel === null) return;
      const data = { channel_id: channel.id, name: channel.name, type: channel.type, error };
      await enqueueAccountNotice(tx, { accountId, event: CHANNEL_FAILING_EVENT, data, at: clock.now() });
    });
  }

  async function sendAndSettle(claim: ClaimedDelivery, prepared: Prepared): Promise<DeliveryReport> {
    if (prepared.kind === 'skipped') return { id: claim.id, channel: claim.channel, outcome: 'skipped', reason: prepared.reason };
    if (prepared.kind === 'lease_lost') return { id: claim.id, channel: claim.channel, outcome: 'lease_lost' };
    const started = performance.now();
    // prepareDelivery skips notices too when no SMTP server is configured, so the mailer exists for one.
    // prepareDelivery skips digests too when no SMTP server is configured.
    const result =
      prepared.kind === 'notice'
        ? await mailer!.send(prepared.to, composeNotice(prepared.notice, config.publicUrl))
        : prepared.kind === 'digest'
          ? await mailer!.send(prepared.to, composeDigestEmail(prepared.digest, config.publicUrl))
          : await send(claim.id, prepared.subject, prepared.destination);
    const { outcome, error, gaveUp = false } = await settle(claim, result, Math.round(performance.now() - started));
    if (
      outcome === 'failed' &&
      prepared.kind === 'send' &&
      prepared.destination.channel === 'chat' &&
      channelKeepsFailing(result, gaveUp)
    ) {
      // settle says why whenever a row fails.
      await reportFailingChannel(prepared.subject.account.id, prepared.destination.channelId, error!);
    }
    if (outcome === 'delivered') options.logger.info(deliveryIds(claim, prepared), 'notification delivered');
    // A notification given up on is lost to its receiver: a warning, shown at LOG_LEVEL=warn too.
    if (outcome === 'failed') options.logger.warn({ ...deliveryIds(claim, prepared), error }, 'notification failed');
    return { id: claim.id, channel: claim.channel, outcome };
  }

  async function runOnce(): Promise<DeliveryReport[]> {
    const claims = await db.transaction((tx) => claimDueDeliveries(tx, clock.now(), leaseSeconds, batchSize));
    for (const claim of claims) held.add(claim);
    // Rows are prepared (and charged) one after another in claim order, oldest
    // first, so an allowance that runs out leaves the newest notifications
    // unsent; each send starts as soon as its row is prepared.
    let previous: Promise<unknown> = Promise.resolve();
    const deliveries = claims.map((claim) => {
      const prepared = previous.then(() =>
        db.transaction((tx) => prepareDelivery(tx, claim, { plans: config.plans, smtpConfigured: mailer !== null }, clock.now())),
      );
      previous = prepared.catch(() => undefined);
      return prepared.then((ready) => sendAndSettle(claim, ready)).finally(() => held.delete(claim));
    });
    const settled = await Promise.allSettled(deliveries);
    for (const s of settled) {
      if (s.status === 'fulfilled') options.metrics?.notificationDeliveries.inc({ channel: s.value.channel, outcome: s.value.outcome });
    }
    const failure = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    // A row whose delivery broke (e.g. the store went away) keeps its lease and is tried again once it runs out.
    if (failure) throw failure.reason;
    return settled.map((s) => (s as PromiseFulfilledResult<DeliveryReport>).value);
  }

  function schedule(delayMs: number): void {
    timer = setTimeout(() => {
      timer = null;
      const current = runOnce().then(
        (reports) => reports.length >= batchSize,
        (err: unknown) => {
          options.logger.error({ err }, 'notification delivery round failed');
          return false;
        },
      );
      round = current;
      void current.then((full) => {
        round = null;
        // A full batch means more may be due right now.
        if (running) schedule(full ? 0 : (options.pollMs ?? DEFAULT_POLL_MS));
      });
    }, delayMs);
  }

  return {
    runOnce,
    start() {
      if (running) return;
      running = true;
      heartbeat = setInterval(renewHeld, (leaseSeconds * 1000) / HEARTBEATS_PER_LEASE);
      schedule(0);
    },
    async stop() {
      running = false;
      if (timer) clearTimeout(timer);
      timer = null;
      await round;
      if (heartbeat) clearInterval(heartbeat);
      heartbeat = null;
      await beating;
      mailer?.close();
    },
  };
}
