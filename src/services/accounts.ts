import type { Static } from '@sinclair/typebox';
import type { AccountListItemSchema, AccountSchema } from '../schemas/admin.ts';
import { randomBytes, randomUUID } from 'node:crypto';
import type { Clock } from '../clock.ts';
import { AppError } from '../errors.ts';
import type { PlanName, Plans } from '../domain/plans.ts';
import { isTimeZone } from '../domain/time-zones.ts';
import type { EmailMode } from '../domain/digest-periods.ts';
import type { Database } from '../store/database.ts';
import type { GuardPolicy } from '../domain/network/guard-policy.ts';
import { vetUrl } from '../fetch/ssrf/guard.ts';
import { findAccount, insertAccount, listAccounts, lockAccount, updateAccount, type AccountRow } from '../store/accounts-store.ts';
import { noticeMonitorsStoppedByMove } from './plan-moves.ts';

export type AccountView = Omit<Static<typeof AccountSchema>, 'webhook_secret'>;
export type AccountListItem = Static<typeof AccountListItemSchema>;

export interface AccountDeps {
  db: Database;
  clock: Clock;
  config: { plans: Plans };
}

function view(row: AccountRow): AccountView {
  return {
    id: row.id,
    email: row.email,
    plan: row.plan,
    webhook_url: row.webhook_url,
    time_zone: row.time_zone,
    email_mode: row.email_mode,
    digest_hour: row.digest_hour,
  };
}

export async function createAccount(deps: AccountDeps, input: { email: string; plan: PlanName }): Promise<AccountView> {
  const now = deps.clock.now();
  const row = await insertAccount(deps.db, {
    id: randomUUID(),
    email: input.email.toLowerCase(),
    plan: input.plan,
    created_at: now,
    updated_at: now,
  });
  if (!row)
    throw new AppError('validation_failed', 'an account with this email exists', {
      details: [{ field: 'email', message: 'already in use' }],
    });
  return view(row);
}

export async function getAccount(deps: AccountDeps, id: string): Promise<AccountView> {
  const row = await findAccount(deps.db, id);
  if (!row) throw new AppError('not_found', 'account not found');
  return view(row);
}

/** One page of the operator's account list, newest first; `next` is the keyset position of the last row when more follow. */
export async function listAccountPage(
  deps: AccountDeps,
  query: { limit: number; after: { created_at: Date; id: string } | null },
): Promise<{ rows: AccountListItem[]; next: { created_at: Date; id: string } | null }> {
  const rows = await listAccounts(deps.db, { limit: query.limit + 1, after: query.after });
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  return {
    rows: page.map((row) => ({ ...view(row), created_at: row.created_at.toISOString(), monitors: row.monitors })),
    next: rows.length > query.limit && last ? { created_at: last.created_at, id: last.id } : null,
  };
}

/**
 * Refuses now what the guard would refuse at every delivery (scheme, port, userinfo, literal private or metadata
 * addresses); a host name is resolved and vetted at delivery.
 */
export function assertWebhookUrlAllowed(url: string, policy: GuardPolicy): void {
  const vetted = vetUrl(url, policy);
  if (!vetted.ok) {
    throw new AppError('validation_failed', `webhook_url is not allowed: ${vetted.reason}`, {
      details: [{ field: 'webhook_url', message: vetted.reason }],
    });
  }
}

/** Updates an account; a new webhook_url gets a new signing secret, returned once. */
export async function changeAccount(
  deps: AccountDeps,
  id: string,
  input: { email?: string; plan?: PlanName; webhook_url?: string | null; time_zone?: string; email_mode?: EmailMode; digest_hour?: number },
): Promise<AccountView & { webhook_secret?: string }> {
  if (input.time_zone !== undefined && !isTimeZone(input.time_zone)) {
    throw new AppError('validation_failed', 'time_zone is not an IANA time zone name', {
      details: [{ field: 'time_zone', message: 'expected an IANA time zone name such as Europe/Berlin, or UTC' }],
    });
  }
  const webhookSecret = typeof input.webhook_url === 'string' ? `whsec_${randomBytes(32).toString('base64')}` : undefined;
  const at = deps.clock.now();
  const row = await deps.db
    .transaction(async (tx) => {
      // Locked first, so that of two moves to the same plan only the first sees a change of plan.
      const before = await lockAccount(tx, id);
      if (!before) return null;
      const after = await updateAccount(
        tx,
        id,
        {
          email: input.email?.toLowerCase(),
          plan: input.plan,
          webhook_url: input.webhook_url,
          webhook_secret: input.webhook_url === null ? null : webhookSecret,
          time_zone: input.time_zone,
          email_mode: input.email_mode,
          digest_hour: input.digest_hour,
        },
        at,
      );
      if (after) await noticeMonitorsStoppedByMove(tx, deps.config.plans, { accountId: id, from: before.plan, to: after.plan, at });
      return after;
    })
    .catch((err: { code?: string }) => {
      if (err.code === '23505')
        throw new AppError('validation_failed', 'an account with this email exists', {
          details: [{ field: 'email', message: 'already in use' }],
        });
      throw err;
    });
  if (!row) throw new AppError('not_found', 'account not found');
  return webhookSecret ? { ...view(row), webhook_secret: webhookSecret } : view(row);
}
