import type { Static } from '@sinclair/typebox';
import { randomUUID } from 'node:crypto';
import type { ChannelSchema, CreateChannelBody } from '../schemas/channels.ts';
import type { Clock } from '../clock.ts';
import { parseChannelUrl } from '../domain/channel-urls.ts';
import { AppError } from '../errors.ts';
import type { Database } from '../store/database.ts';
import { lockAccount } from '../store/accounts-store.ts';
import { countChannels, deleteChannel, findChannel, insertChannel, listChannels, type ChannelRow } from '../store/channels-store.ts';
import type { Principal } from './tokens.ts';

// The account's notification channels, through the public API. The stored URL
// carries the service's secret; every view shows it masked.

export type ChannelView = Static<typeof ChannelSchema>;
export type CreateChannelInput = Static<typeof CreateChannelBody>;

export interface ChannelDeps {
  db: Database;
  clock: Clock;
}

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
