import { randomUUID } from 'node:crypto';
import pino from 'pino';
import type { Target } from '../../src/domain/targets.ts';
import { createDispatcher, type Dispatcher, type DispatcherOptions } from '../../src/notify/dispatcher.ts';
import { insertChanges } from '../../src/store/changes-store.ts';
import { saveTexts, textHash } from '../../src/store/texts-store.ts';
import { enqueueNotification, type NotificationChannel } from '../../src/store/outbox-store.ts';
import { insertMonitorRow } from './monitor-rows.ts';
import type { TestApp } from './test-app.ts';
import { PRICE } from './watched-page.ts';

// Changes and their outbox rows as the engine writes them (in one
// transaction, through the same store functions), for notification tests that
// do not need a page to change.

export const PRICE_TARGET: Target = { ...PRICE, label: 'Espresso price' };

export interface MonitorInput {
  accountId: string;
  name?: string;
  url?: string;
  targets?: Target[];
  emailEnabled?: boolean;
  webhookEnabled?: boolean;
}

/** Where the rows go and what time they are written at: a test app, or a shared store and a fixed moment. */
export type RowWriter = Pick<TestApp, 'db'> & { clock: { now(): Date } };

let monitorCounter = 0;

export async function insertNotifyingMonitor(t: RowWriter, input: MonitorInput): Promise<string> {
  const id = await insertMonitorRow(t.db, {
    accountId: input.accountId,
    url: input.url ?? `https://shop.example/espresso-${++monitorCounter}`,
    targets: input.targets ?? [PRICE_TARGET],
    // never due: these tests drive no engine
    nextCheckAt: new Date('2100-01-01T00:00:00Z'),
    emailEnabled: input.emailEnabled,
    webhookEnabled: input.webhookEnabled,
  });
  if (input.name !== undefined) await t.db.query('UPDATE monitors SET name = $2 WHERE id = $1', [id, input.name]);
  return id;
}

export interface ChangeInput {
  accountId: string;
  monitorId: string;
  channels: NotificationChannel[];
  targetId?: string;
  kind?: 'text' | 'price' | 'availability' | 'links';
  ruleMatches?: { target_id: string; rule: string }[] | null;
  before?: { value: unknown; display: string | null };
  after?: { value: unknown; display: string | null };
  /** the captured texts of the change (none by default) */
  texts?: { before: string; after: string };
}

/** Outbox ids by channel; only the channels a change was enqueued on have one. */
type OutboxIds = Record<NotificationChannel, string>;

/** A detected change and its outbox rows, committed together; returns the change id and the outbox ids by channel. */
export async function insertNotifiedChange(t: RowWriter, input: ChangeInput): Promise<{ changeId: string; outbox: OutboxIds }> {
  const changeId = randomUUID();
  const at = t.clock.now();
  const targetId = input.targetId ?? 'price';
  const hashes = input.texts && { before: textHash(input.texts.before), after: textHash(input.texts.after) };
  await t.db.transaction(async (tx) => {
    if (input.texts && hashes) {
      await saveTexts(tx, [
        { hash: hashes.before, content: input.texts.before, used_at: at },
        { hash: hashes.after, content: input.texts.after, used_at: at },
      ]);
    }
    await insertChanges(tx, [
      {
        id: changeId,
        account_id: input.accountId,
        monitor_id: input.monitorId,
        target_id: targetId,
        kind: input.kind ?? 'price',
        detected_at: at,
        rule_matches: input.ruleMatches === undefined ? [{ target_id: targetId, rule: 'dropped' }] : input.ruleMatches,
        matched: true,
        before_value: input.before?.value ?? 2400,
        before_display: input.before === undefined ? '24.00 EUR' : input.before.display,
        after_value: input.after?.value ?? 1990,
        after_display: input.after === undefined ? '19.90 EUR' : input.after.display,
        before_text_hash: hashes?.before ?? null,
        after_text_hash: hashes?.after ?? null,
      },
    ]);
    for (const channel of input.channels) await enqueueNotification(tx, { changeId, accountId: input.accountId, channel, at });
  });
  const rows = await t.db.query<{ id: string; channel: string }>('SELECT id, channel FROM notification_outbox WHERE change_id = $1', [
    changeId,
  ]);
  return { changeId, outbox: Object.fromEntries(rows.map((r) => [r.channel, r.id])) as OutboxIds };
}

export interface OutboxState {
  status: string;
  attempts: number;
  next_attempt_at: Date;
  delivered_at: Date | null;
  skipped_reason: string | null;
  last_error: string | null;
  charged_period: Date | null;
}

export async function outboxRow(t: TestApp, id: string): Promise<OutboxState> {
  const rows = await t.db.query<OutboxState>('SELECT * FROM notification_outbox WHERE id = $1', [id]);
  return rows[0]!;
}

export async function attemptsOf(t: TestApp, id: string) {
  return t.db.query<{ response_status: number | null; outcome: string; error: string | null; attempted_at: Date }>(
    'SELECT response_status, outcome, error, attempted_at FROM notification_attempts WHERE outbox_id = $1 ORDER BY attempted_at',
    [id],
  );
}

/** The dispatcher on the test app's store, clock, configuration and SSRF policy. */
export function testDispatcher(t: TestApp, options: Partial<DispatcherOptions> = {}): Dispatcher {
  return createDispatcher({
    db: t.db,
    clock: t.clock,
    config: t.config,
    policy: t.loaders.policy,
    logger: pino({ level: 'silent' }),
    extraction: t.loaders.extraction,
    ...options,
  });
}
