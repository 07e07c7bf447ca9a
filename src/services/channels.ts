import type { Static } from '@sinclair/typebox';
import { randomUUID } from 'node:crypto';
import type { ChannelDeliverySchema, ChannelSchema, ChannelTestSchema, CreateChannelBody } from '../schemas/channels.ts';
import type { Clock } from '../clock.ts';
import { parseChannelUrl } from '../domain/channel-urls.ts';
import { AppError } from '../errors.ts';
import type { Database } from '../store/database.ts';
import { lockAccount } from '../store/accounts-store.ts';
import {
  countChannels,
  deleteChannel,
  findChannel,
  insertChannel,
  listChannelDeliveries,
  listChannels,
  markChannelActive,
  type ChannelRow,
} from '../store/channels-store.ts';
import type { GuardPolicy } from '../fetch/ssrf/guard.ts';
import { sendChannelMessage } from '../fetch/channels/channel-sender.ts';
import type { Principal } from './tokens.ts';

// The account's notification channels, through the public API. The stored URL
// carries the service's secret; every view shows it masked.

export type ChannelView = Static<typeof ChannelSchema>;
export type CreateChannelInput = Static<typeof CreateChannelBody>;
export type ChannelDeliveryView = Static<typeof ChannelDeliverySchema>;
export type ChannelTestView = Static<typeof ChannelTestSchema>;

export interface ChannelDeps {
  db: Database;
  clock: Clock;
}

export interface ChannelTestDeps extends ChannelDeps {
  config: { publicUrl: string; channelHostOverrides: Record<string, string> };
  loaders: { policy: GuardPolicy };
}

/** Entries of a channel's delivery log. */
const DELIVERY_LOG_LENGTH = 50;

function view(row: ChannelRow): ChannelView {
  const parsed = parseChannelUrl(row.url);
  // A stored URL was parsed when it was made; the parser only ever accepts more.
  if (!parsed.ok) throw new AppError('internal_error', `channel ${row.id} has a URL the parser refuses`);
  return {
    id: row.id,
    name: row.name,
    type: parsed.target.type,
    url: parsed.target.masked,
    state: row.state,
    created_at: row.created_at.toISOString(),
  };
}

export async function createChannel(deps: ChannelDeps, principal: Principal, input: CreateChannelInput): Promise<ChannelView> {
  const parsed = parseChannelUrl(input.url);
  if (!parsed.ok) {
    throw new AppError('validation_failed', 'not a channel URL', { details: [{ field: 'url', message: parsed.message }] });
  }
  return deps.db.transaction(async (tx) => {
    // The account row lock makes the channel limit exact under concurrency.
    await lockAccount(tx, principal.accountId);
    const limit = principal.plan.channels;
    if ((await countChannels(tx, principal.accountId)) >= limit) {
      throw new AppError('allowance_exhausted', `at most ${limit} channels per account; delete one first`);
    }
    const row: ChannelRow = {
      id: randomUUID(),
      account_id: principal.accountId,
      name: input.name,
      type: parsed.target.type,
      url: input.url,
      state: 'active',
      created_at: deps.clock.now(),
    };
    await insertChannel(tx, row);
    return view(row);
  });
}

export async function listAccountChannels(deps: ChannelDeps, principal: Principal): Promise<ChannelView[]> {
  return (await listChannels(deps.db, principal.accountId)).map(view);
}

export async function readAccountChannel(deps: ChannelDeps, principal: Principal, id: string): Promise<ChannelView> {
  const row = await findChannel(deps.db, principal.accountId, id);
  if (row === null) throw new AppError('not_found', 'channel not found');
  return view(row);
}

export async function deleteAccountChannel(deps: ChannelDeps, principal: Principal, id: string): Promise<void> {
  if (!(await deleteChannel(deps.db, principal.accountId, id))) throw new AppError('not_found', 'channel not found');
}

export async function listDeliveries(deps: ChannelDeps, principal: Principal, id: string): Promise<ChannelDeliveryView[]> {
  if ((await findChannel(deps.db, principal.accountId, id)) === null) throw new AppError('not_found', 'channel not found');
  const rows = await listChannelDeliveries(deps.db, principal.accountId, id, DELIVERY_LOG_LENGTH);
  return rows.map((r) => ({
    id: r.id,
    event: r.event,
    created_at: r.created_at.toISOString(),
    status: r.status,
    attempts: r.attempts,
    last_attempt_at: r.last_attempt_at?.toISOString() ?? null,
    response_status: r.response_status,
    last_error: r.last_error,
    skipped_reason: r.skipped_reason,
  }));
}

/**
 * Sends a test message now, outside the outbox, and answers with what the
 * service said; a failing channel that takes it is active again.
 */
export async function testChannel(deps: ChannelTestDeps, principal: Principal, id: string): Promise<ChannelTestView> {
  const channel = await findChannel(deps.db, principal.accountId, id);
  if (channel === null) throw new AppError('not_found', 'channel not found');
  const result = await sendChannelMessage(
    { policy: deps.loaders.policy, clock: deps.clock, hostOverrides: deps.config.channelHostOverrides },
    { url: channel.url, messageId: randomUUID() },
    {
      title: `pagewatch test message for ${channel.name}`,
      lines: ['Alerts of the monitors that choose this channel arrive here.'],
      link: deps.config.publicUrl,
      linkText: 'Open pagewatch',
      severity: 'change',
    },
  );
  const delivered = result.outcome === 'delivered';
  if (delivered && channel.state === 'failing') await markChannelActive(deps.db, channel.id);
  return { delivered, response_status: result.responseStatus, answer: result.answer, error: delivered ? null : result.error };
}
