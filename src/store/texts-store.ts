import { createHash } from 'node:crypto';
import type { Queryable } from './database.ts';

// Captured texts are content-addressed: identical texts (the same page text on
// many checks, the after side of one change and the before side of the next)
// are stored once.

/** An unreferenced captured text is kept this long after its last use (housekeeping deletes it after). */
export const UNUSED_TEXT_GRACE_MS = 3_600_000;
/**
 * A text's last use is written again only once the one stored is this much
 * older: an unchanged page checked every minute otherwise wrote a new version
 * of its text's row, and of its index entries, at every check. Far below the
 * grace, so a text in use is never old enough to delete.
 */
export const LAST_USE_REFRESH_MS = 600_000;

export function textHash(content: string): string {
  return createHash('sha256').update(content).digest('hex');
}

export interface TextRow {
  hash: string;
  content: string;
  /** when the check that refers to it was made */
  used_at: Date;
}

/**
 * Stores several texts (or marks existing copies as used) in one statement,
 * once per hash and in hash order, so that writers of overlapping rows take
 * their locks alike. ON CONFLICT DO UPDATE locks each existing row for the
 * transaction, its last use written again or not (LAST_USE_REFRESH_MS), so a
 * cleanup running at the same time cannot delete it between here and the
 * reference.
 */
export async function saveTexts(db: Queryable, texts: TextRow[]): Promise<void> {
  const byHash = new Map<string, TextRow>();
  for (const text of texts) {
    const seen = byHash.get(text.hash);
    if (seen === undefined || seen.used_at < text.used_at) byHash.set(text.hash, text);
  }
  if (byHash.size === 0) return;
  const rows = [...byHash.values()].sort((a, b) => (a.hash < b.hash ? -1 : 1));
  await db.query(
    `INSERT INTO texts (hash, content, last_used_at)
     SELECT * FROM unnest($1::text[], $2::text[], $3::timestamptz[])
     ON CONFLICT (hash) DO UPDATE SET last_used_at = EXCLUDED.last_used_at
       WHERE texts.last_used_at < EXCLUDED.last_used_at - $4::int * interval '1 millisecond'`,
    [rows.map((r) => r.hash), rows.map((r) => r.content), rows.map((r) => r.used_at), LAST_USE_REFRESH_MS],
  );
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
