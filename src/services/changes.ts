import type { Static } from '@sinclair/typebox';
import type { ChangeSchema } from '../schemas/changes.ts';
import type { Clock } from '../clock.ts';
import { AppError } from '../errors.ts';
import type { Database } from '../store/database.ts';
import { findChange, listChanges, type ChangeRow } from '../store/changes-store.ts';
import { readTexts } from '../store/texts-store.ts';
import type { Loaders } from '../fetch/loaders.ts';
import { changeDiffs } from './change-diffs.ts';
import type { Principal } from './tokens.ts';

// Reading recorded changes. Retention (the plan's retention_days) is applied
// on every read, so an expired change is gone for the caller even before the
// periodic cleanup deletes it.

export interface ChangeDeps {
  db: Database;
  clock: Clock;
  /** the extraction threads, which compute a diff not stored yet */
  loaders: Pick<Loaders, 'extraction'>;
}

export interface ChangeQuery {
  monitorId?: string;
  targetId?: string;
  since?: Date;
  until?: Date;
  matched?: boolean;
  limit: number;
  /** keyset position of the last change of the previous page */
  after: { detectedAt: Date; id: string } | null;
}

const DAY_MS = 86_400_000;

function retainedAfter(deps: ChangeDeps, principal: Principal): Date {
  return new Date(deps.clock.now().getTime() - principal.plan.retention_days * DAY_MS);
}

export type ChangeView = Static<typeof ChangeSchema>;

export function changeView(row: ChangeRow): ChangeView {
  return {
    id: row.id,
    monitor_id: row.monitor_id,
    target_id: row.target_id,
    kind: row.kind as 'text' | 'price' | 'availability' | 'links',
    detected_at: row.detected_at.toISOString(),
    rule_matches: row.rule_matches as { target_id: string; rule: string }[] | null,
    before: { value: row.before_value as string | number | string[], display: row.before_display },
    after: { value: row.after_value as string | number | string[], display: row.after_display },
  };
}

export interface ChangePage {
  rows: ChangeView[];
  /** keyset position after the last row, when more may follow */
  next: { detectedAt: Date; id: string } | null;
}

/** GET /changes: newest first, including value changes that matched no rule. */
export async function listChangePage(deps: ChangeDeps, principal: Principal, query: ChangeQuery): Promise<ChangePage> {
  const rows = await listChanges(
    deps.db,
    {
      accountId: principal.accountId,
      retainedAfter: retainedAfter(deps, principal),
      monitorId: query.monitorId,
      targetId: query.targetId,
      since: query.since,
      until: query.until,
      matched: query.matched,
      before: query.after ?? undefined,
    },
    query.limit + 1,
  );
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  return { rows: page.map(changeView), next: rows.length > query.limit && last ? { detectedAt: last.detected_at, id: last.id } : null };
}

/** GET /changes/{id}: the change with both captured texts and their stored diff. */
export async function getChangeDetail(deps: ChangeDeps, principal: Principal, id: string) {
  const row = await findChange(deps.db, principal.accountId, id, retainedAfter(deps, principal));
  if (!row) throw new AppError('not_found', 'change not found or past retention');
  const hashes = [row.before_text_hash, row.after_text_hash].filter((h): h is string => h !== null);
  const texts = await readTexts(deps.db, hashes);
  const beforeText = row.before_text_hash === null ? null : (texts.get(row.before_text_hash) ?? null);
  const afterText = row.after_text_hash === null ? null : (texts.get(row.after_text_hash) ?? null);
  const diff = (
    await changeDiffs({ db: deps.db, extraction: deps.loaders.extraction, ticket: { account: principal.accountId, lane: 'check' } }, [row])
  ).get(row.id)!;
  return {
    ...changeView(row),
    before_text: beforeText,
    after_text: afterText,
    diff: diff.unified,
    diff_detail: diff.detail,
    hunks: diff.hunks,
  };
}
