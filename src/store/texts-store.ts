import { createHash } from 'node:crypto';
import type { Queryable } from './database.ts';

// Captured texts are content-addressed: identical texts (the same page text on
// many checks, the after side of one change and the before side of the next)
// are stored once.

export function textHash(content: string): string {
  return createHash('sha256').update(content).digest('hex');
}

/**
 * Stores a text (or marks an existing copy as used now) and returns its key.
 * Updating last_used_at also locks the row for the transaction, so a cleanup
 * running at the same time cannot delete it between here and the reference.
 */
export async function saveText(db: Queryable, content: string, at: Date): Promise<string> {
  const hash = textHash(content);
  await db.query(
    `INSERT INTO texts (hash, content, last_used_at) VALUES ($1, $2, $3::timestamptz)
     ON CONFLICT (hash) DO UPDATE SET last_used_at = EXCLUDED.last_used_at`,
    [hash, content, at],
  );
  return hash;
}

/** The contents of several texts by key; missing keys are absent from the map. */
export async function readTexts(db: Queryable, hashes: string[]): Promise<Map<string, string>> {
  if (hashes.length === 0) return new Map();
  const rows = await db.query<{ hash: string; content: string }>('SELECT hash, content FROM texts WHERE hash = ANY($1::text[])', [hashes]);
  return new Map(rows.map((r) => [r.hash, r.content]));
}

/** Deletes texts no baseline or change refers to and unused since `usedBefore`. */
export async function deleteUnreferencedTexts(db: Queryable, usedBefore: Date): Promise<number> {
  const rows = await db.query(
    `DELETE FROM texts t WHERE t.last_used_at < $1::timestamptz
       AND NOT EXISTS (SELECT 1 FROM baselines b WHERE b.text_hash = t.hash)
       AND NOT EXISTS (SELECT 1 FROM changes c WHERE c.before_text_hash = t.hash)
       AND NOT EXISTS (SELECT 1 FROM changes c WHERE c.after_text_hash = t.hash)
     RETURNING t.hash`,
    [usedBefore],
  );
  return rows.length;
}
