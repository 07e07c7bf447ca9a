import { createHash } from 'node:crypto';
import type { Clock } from '../clock.ts';
import { AppError } from '../errors.ts';
import type { Database, Queryable } from '../store/database.ts';
import { lockAccount } from '../store/accounts-store.ts';
import { claimIdempotencyKey, findIdempotencyKey, recentIdempotencyKeys, storeIdempotentResult } from '../store/idempotency-store.ts';
import { secondsUntil } from '../domain/periods.ts';
import type { Principal } from './tokens.ts';
import { canonicalJson } from '../domain/canonical-json.ts';
import { IDEMPOTENCY_KEY_PATTERN } from '../schemas/common.ts';

// Idempotency-Key (specification): scoped to account and operation, 24 hours;
// same key and same JSON body (property order irrelevant) replays the retained
// result; a different body is 409; only committed successes are retained.

const RETAIN_SECONDS = 24 * 60 * 60;

/** What an idempotent operation produced, and whether it was retained from an earlier request with the same key. */
export interface IdempotentOutcome<T> {
  value: T;
  replayed: boolean;
}

export function checkIdempotencyKey(key: string | string[] | undefined): string {
  if (key === undefined || key === '') throw new AppError('idempotency_key_missing', 'the Idempotency-Key header is required');
  if (Array.isArray(key) || !new RegExp(IDEMPOTENCY_KEY_PATTERN).test(key)) {
    throw new AppError('idempotency_key_invalid', 'Idempotency-Key must be 8 to 128 characters of A-Z a-z 0-9 . _ : -');
  }
  return key;
}

/**
 * Runs `perform` at most once per (account, operation, key): the key is
 * claimed in the same transaction as the work, so a failure releases it and a
 * concurrent duplicate waits for the first and then replays its result.
 */
export async function runIdempotent<T>(
  deps: { db: Database; clock: Clock },
  principal: Principal,
  operation: string,
  rawKey: string | string[] | undefined,
  body: unknown,
  perform: (tx: Queryable) => Promise<T>,
): Promise<IdempotentOutcome<T>> {
  const key = checkIdempotencyKey(rawKey);
  const requestHash = createHash('sha256').update(canonicalJson(body)).digest('hex');
  const now = deps.clock.now();
  const where = { account_id: principal.accountId, operation, key };
  return deps.db.transaction(async (tx) => {
    const claimed = await claimIdempotencyKey(tx, { ...where, request_hash: requestHash, created_at: now }, RETAIN_SECONDS);
    if (!claimed) {
      const existing = await findIdempotencyKey(tx, principal.accountId, operation, key);
      if (existing?.result == null) {
        throw new AppError('idempotency_request_in_progress', 'a request with this Idempotency-Key is still in progress; retry shortly', {
          retryAfter: 1,
        });
      }
      if (existing.request_hash !== requestHash) {
        throw new AppError('idempotency_key_reused', 'this Idempotency-Key was used with a different request body');
      }
      return { value: existing.result as T, replayed: true };
    }
    // Idempotent writes of one account are serialised from here: the retained-key count below and the per-account
    // rules of `perform` (slots, one monitor per URL, one outstanding check) are exact across processes.
    await lockAccount(tx, principal.accountId);
    const since = new Date(now.getTime() - RETAIN_SECONDS * 1000);
    const recent = await recentIdempotencyKeys(tx, principal.accountId, since);
    // The claimed row counts itself, hence ">".
    if (recent.count > principal.plan.idempotency_keys_per_day) {
      const frees = new Date((recent.oldest ?? now).getTime() + RETAIN_SECONDS * 1000);
      throw new AppError(
        'idempotency_limited',
        `at most ${principal.plan.idempotency_keys_per_day} idempotent requests are retained per 24 hours`,
        {
          retryAfter: secondsUntil(frees, now),
        },
      );
    }
    const value = await perform(tx);
    await storeIdempotentResult(tx, where, value);
    return { value, replayed: false };
  });
}
