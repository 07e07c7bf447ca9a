import type { ChangeDiff } from '../domain/text-diff.ts';
import type { Queryable } from './database.ts';

// The stored diffs of changes, one per change, written once.

/** The stored diffs of these changes; changes without one are absent from the map. */
export async function readChangeDiffs(db: Queryable, changeIds: string[]): Promise<Map<string, ChangeDiff>> {
  if (changeIds.length === 0) return new Map();
  const rows = await db.query<{ change_id: string; diff: ChangeDiff }>(
    'SELECT change_id, diff FROM change_diffs WHERE change_id = ANY($1::uuid[])',
    [changeIds],
  );
  return new Map(rows.map((r) => [r.change_id, r.diff]));
}

/** Stores a change's diff; a diff stored meanwhile by another process stays (both were computed from the same texts). */
export async function saveChangeDiff(db: Queryable, changeId: string, diff: ChangeDiff): Promise<void> {
  await db.query(
    `INSERT INTO change_diffs (change_id, diff)
     SELECT $1, $2::jsonb WHERE EXISTS (SELECT 1 FROM changes WHERE id = $1)
     ON CONFLICT (change_id) DO NOTHING`,
    [changeId, JSON.stringify(diff)],
  );
}
