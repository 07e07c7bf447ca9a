import { randomBytes } from 'node:crypto';
import type { Queryable } from './database.ts';

/** The named secret, made (32 random bytes) by the first node that asks; every node then reads the same one. */
export async function serverSecret(db: Queryable, name: string): Promise<Buffer> {
  await db.query('INSERT INTO server_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [name, randomBytes(32)]);
  const rows = await db.query<{ value: Uint8Array }>('SELECT value FROM server_secrets WHERE name = $1', [name]);
  return Buffer.from(rows[0]!.value);
}
