import type { Static } from '@sinclair/typebox';
import { randomUUID } from 'node:crypto';
import type { CreateFeedTokenBody, CreatedFeedTokenSchema, FeedTokenSchema } from '../schemas/feeds.ts';
import type { Clock } from '../clock.ts';
import { AppError } from '../errors.ts';
import type { Database } from '../store/database.ts';
import { lockAccount } from '../store/accounts-store.ts';
import {
  accountHasMonitor,
  countActiveFeedTokens,
  insertFeedToken,
  listFeedTokens,
  revokeFeedToken,
  type FeedTokenRow,
} from '../store/feed-tokens-store.ts';
import { generateFeedTokenSecret, hashTokenSecret } from './token-secrets.ts';
import type { Principal } from './tokens.ts';

// Feed tokens are made, listed and revoked through the public API like API
// tokens are by the operator: the secret is shown once, only its hash is kept.

export type FeedTokenView = Static<typeof FeedTokenSchema>;
export type CreateFeedTokenInput = Static<typeof CreateFeedTokenBody>;
export type CreatedFeedToken = Static<typeof CreatedFeedTokenSchema>;

export interface FeedTokenDeps {
  db: Database;
  clock: Clock;
  config: { publicUrl: string };
}

function view(row: FeedTokenRow): FeedTokenView {
  return {
    id: row.id,
    name: row.name,
    label: row.label,
    monitor_id: row.monitor_id,
    hint: row.token_hint,
    state: row.revoked_at ? 'revoked' : 'valid',
    created_at: row.created_at.toISOString(),
    revoked_at: row.revoked_at?.toISOString() ?? null,
  };
}

export function feedUrl(publicUrl: string, secret: string): string {
  return `${publicUrl}/feeds/${secret}/changes.atom`;
}

export async function createFeedToken(deps: FeedTokenDeps, principal: Principal, input: CreateFeedTokenInput): Promise<CreatedFeedToken> {
  if (input.label !== undefined && input.monitor_id !== undefined) {
    throw new AppError('validation_failed', 'a feed shows one label or one monitor, not both', {
      details: [{ field: 'monitor_id', message: 'give label or monitor_id, not both' }],
    });
  }
  return deps.db.transaction(async (tx) => {
    // The account row lock makes the active-token limit exact under concurrency.
    await lockAccount(tx, principal.accountId);
    if (input.monitor_id !== undefined && !(await accountHasMonitor(tx, principal.accountId, input.monitor_id))) {
      throw new AppError('validation_failed', 'no such monitor', { details: [{ field: 'monitor_id', message: 'no such monitor' }] });
    }
    const limit = principal.plan.feed_tokens;
    if ((await countActiveFeedTokens(tx, principal.accountId)) >= limit) {
      throw new AppError('allowance_exhausted', `at most ${limit} active feed tokens per account; revoke one first`);
    }
    const secret = generateFeedTokenSecret();
    const id = randomUUID();
    await insertFeedToken(tx, {
      id,
      account_id: principal.accountId,
      name: input.name,
      label: input.label ?? null,
      monitor_id: input.monitor_id ?? null,
      token_hash: hashTokenSecret(secret),
      token_hint: secret.slice(0, 8),
      created_at: deps.clock.now(),
    });
    return { id, token: secret, feed_url: feedUrl(deps.config.publicUrl, secret) };
  });
}

export async function listAccountFeedTokens(deps: FeedTokenDeps, principal: Principal): Promise<FeedTokenView[]> {
  return (await listFeedTokens(deps.db, principal.accountId)).map(view);
}

export async function revokeAccountFeedToken(deps: FeedTokenDeps, principal: Principal, id: string): Promise<void> {
  if (!(await revokeFeedToken(deps.db, principal.accountId, id, deps.clock.now()))) throw new AppError('not_found', 'feed token not found');
}
