import type { Static } from '@sinclair/typebox';
import type { Clock } from '../clock.ts';
import { AppError } from '../errors.ts';
import { secretNames, type Step } from '../domain/steps.ts';
import type { SecretSchema } from '../schemas/secrets.ts';
import type { Database, Queryable } from '../store/database.ts';
import { lockAccount } from '../store/accounts-store.ts';
import {
  countSecrets,
  deleteSecret,
  findSecret,
  listSecrets,
  missingSecretNames,
  monitorsTypingSecret,
  readSealedSecrets,
  upsertSecret,
  type SecretRow,
} from '../store/secrets-store.ts';
import { openSecret, sealSecret } from './secret-seal.ts';
import type { Principal } from './tokens.ts';

// An account's secrets (issue #42): values a `type` step names instead of
// holding them. Write-only: stored sealed (secret-seal.ts), never answered,
// logged or put in an error; only a load that types them opens them.

export interface SecretDeps {
  db: Database;
  clock: Clock;
  config: { secretsKey: Buffer | null };
}

export type SecretView = Static<typeof SecretSchema>;

function view(row: SecretRow): SecretView {
  return { name: row.name, created_at: row.created_at.toISOString(), updated_at: row.updated_at.toISOString() };
}

function requireKey(deps: SecretDeps): Buffer {
  if (deps.config.secretsKey === null) {
    throw new AppError('unavailable', 'this server stores no secrets: its operator has not set PAGEWATCH_SECRETS_KEY');
  }
  return deps.config.secretsKey;
}

/** PUT /secrets/{name}: stores a new secret or replaces its value; whether it was new. */
export async function putSecret(
  deps: SecretDeps,
  principal: Principal,
  name: string,
  value: string,
): Promise<{ created: boolean; secret: SecretView }> {
  const key = requireKey(deps);
  return deps.db.transaction(async (tx) => {
    // The account's secrets are written in turn, so the plan's count holds under concurrent writes.
    await lockAccount(tx, principal.accountId);
    const now = deps.clock.now();
    const existing = await findSecret(tx, principal.accountId, name);
    if (!existing && (await countSecrets(tx, principal.accountId)) >= principal.plan.secrets) {
      throw new AppError('allowance_exhausted', `the plan allows ${principal.plan.secrets} secrets; delete one first`);
    }
    const created = await upsertSecret(tx, principal.accountId, name, sealSecret(key, principal.accountId, name, value), now);
    const row = await findSecret(tx, principal.accountId, name);
    if (!row) throw new AppError('internal_error', `secret ${name} vanished during its write`);
    return { created, secret: view(row) };
  });
}

export async function listAccountSecrets(deps: SecretDeps, principal: Principal): Promise<SecretView[]> {
  return (await listSecrets(deps.db, principal.accountId)).map(view);
}

/** DELETE /secrets/{name}: refused (409 secret_in_use) while a monitor's steps type it, naming those monitors. */
export async function removeSecret(deps: SecretDeps, principal: Principal, name: string): Promise<void> {
  await deps.db.transaction(async (tx) => {
    // Monitor changes that add the secret take the same lock (assertSecretsExist), so none slips in between.
    await lockAccount(tx, principal.accountId);
    const users = await monitorsTypingSecret(tx, principal.accountId, name);
    if (users.length > 0) {
      const named = users.map((m) => (m.name === null ? m.id : `${m.id} (${m.name})`));
      throw new AppError(
        'secret_in_use',
        `the secret ${name} is typed by the steps of monitors: ${named.join(', ')}; change their steps first`,
        {
          details: users.map((m) => ({ field: 'monitors', message: m.id })),
        },
      );
    }
    if (!(await deleteSecret(tx, principal.accountId, name))) throw new AppError('not_found', 'secret not found');
  });
}

/**
 * Every secret the steps name exists (422 validation_failed naming the step
 * otherwise). In a transaction it takes the account's lock first, so that a
 * deletion of the secret waits for the monitor's write or sees it.
 */
export async function assertSecretsExist(
  db: Queryable,
  accountId: string,
  steps: readonly Step[],
  options: { lock: boolean },
): Promise<void> {
  const names = secretNames(steps);
  if (names.length === 0) return;
  if (options.lock) await lockAccount(db, accountId);
  const missing = new Set(await missingSecretNames(db, accountId, names));
  const details = steps.flatMap((step, index) =>
    step.secret !== undefined && missing.has(step.secret)
      ? [{ field: `steps[${index}].secret`, message: `no secret named ${step.secret}; store it with PUT /secrets/${step.secret}` }]
      : [],
  );
  if (details.length > 0) throw new AppError('validation_failed', 'the steps name secrets the account does not have', { details });
}

/** The values of the secrets the steps type, for the load that types them; a secret gone or not opening is absent (its step fails). */
export async function openStepSecrets(
  deps: Pick<SecretDeps, 'db' | 'config'>,
  accountId: string,
  steps: readonly Step[],
): Promise<Map<string, string>> {
  const names = secretNames(steps);
  const values = new Map<string, string>();
  const key = deps.config.secretsKey;
  if (names.length === 0 || key === null) return values;
  for (const { name, sealed } of await readSealedSecrets(deps.db, accountId, names)) {
    const value = openSecret(key, accountId, name, sealed);
    if (value !== null) values.set(name, value);
  }
  return values;
}
