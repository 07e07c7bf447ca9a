import type { Queryable } from './database.ts';

// The account_secrets table (migration 030): sealed values only.

export interface SecretRow {
  name: string;
  created_at: Date;
  updated_at: Date;
}

/** Stores or replaces the sealed value; true when the name was new. */
export async function upsertSecret(db: Queryable, accountId: string, name: string, sealed: Buffer, at: Date): Promise<boolean> {
  const rows = await db.query<{ created: boolean }>(
    `INSERT INTO account_secrets (account_id, name, sealed, created_at, updated_at) VALUES ($1, $2, $3, $4, $4)
     ON CONFLICT (account_id, name) DO UPDATE SET sealed = EXCLUDED.sealed, updated_at = EXCLUDED.updated_at
     RETURNING (xmax = 0) AS created`,
    [accountId, name, sealed, at],
  );
  return rows[0]?.created ?? false;
}

export async function findSecret(db: Queryable, accountId: string, name: string): Promise<SecretRow | null> {
  const rows = await db.query<SecretRow>('SELECT name, created_at, updated_at FROM account_secrets WHERE account_id = $1 AND name = $2', [
    accountId,
    name,
  ]);
  return rows[0] ?? null;
}

export async function listSecrets(db: Queryable, accountId: string): Promise<SecretRow[]> {
  return db.query<SecretRow>('SELECT name, created_at, updated_at FROM account_secrets WHERE account_id = $1 ORDER BY name', [accountId]);
}

export async function countSecrets(db: Queryable, accountId: string): Promise<number> {
  const [row] = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM account_secrets WHERE account_id = $1', [accountId]);
  return row?.n ?? 0;
}

/** The names among `names` the account has no secret of. */
export async function missingSecretNames(db: Queryable, accountId: string, names: string[]): Promise<string[]> {
  if (names.length === 0) return [];
  const rows = await db.query<{ name: string }>(
    `SELECT n.name FROM unnest($2::text[]) AS n(name)
     WHERE NOT EXISTS (SELECT 1 FROM account_secrets s WHERE s.account_id = $1 AND s.name = n.name)`,
    [accountId, names],
  );
  return rows.map((r) => r.name);
}

/** The sealed values of the named secrets the account has. */
export async function readSealedSecrets(
  db: Queryable,
  accountId: string,
  names: string[],
): Promise<{ name: string; sealed: Uint8Array }[]> {
  if (names.length === 0) return [];
  return db.query<{ name: string; sealed: Uint8Array }>(
    'SELECT name, sealed FROM account_secrets WHERE account_id = $1 AND name = ANY($2::text[])',
    [accountId, names],
  );
}

/** The account's monitors whose steps type the secret. */
export async function monitorsTypingSecret(db: Queryable, accountId: string, name: string): Promise<{ id: string; name: string | null }[]> {
  return db.query<{ id: string; name: string | null }>(
    `SELECT id, name FROM monitors WHERE account_id = $1 AND steps @> $2::jsonb ORDER BY created_at, id`,
    [accountId, JSON.stringify([{ secret: name }])],
  );
}

export async function deleteSecret(db: Queryable, accountId: string, name: string): Promise<boolean> {
  const rows = await db.query('DELETE FROM account_secrets WHERE account_id = $1 AND name = $2 RETURNING name', [accountId, name]);
  return rows.length > 0;
}
