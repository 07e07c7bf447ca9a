import type { DocumentFormat, PageSource } from '../domain/page-source.ts';
import type { Queryable } from './database.ts';
import type { Step, StepOutcome } from '../domain/steps.ts';

export interface PreviewRow {
  id: string;
  account_id: string;
  url: string;
  final_url: string;
  load_mode: 'html' | 'browser';
  title: string | null;
  /** an HTML page's decoded text; empty for other formats */
  html: string;
  format: DocumentFormat;
  /** a JSON or PDF document's bytes; null for HTML */
  body: Uint8Array | null;
  elements: unknown[];
  /** the steps the page was loaded with (browser mode) */
  steps: Step[];
  /** whether one of them failed: such a preview makes no monitor */
  step_failed: boolean;
  /** what each step did, in order, up to a failed one */
  step_outcomes: StepOutcome[];
  created_at: Date;
  expires_at: Date;
}

export async function insertPreview(db: Queryable, row: PreviewRow): Promise<void> {
  await db.query(
    `INSERT INTO previews (id, account_id, url, final_url, load_mode, title, html, format, body, elements, created_at, expires_at, steps, step_failed, step_outcomes)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`,
    [
      row.id,
      row.account_id,
      row.url,
      row.final_url,
      row.load_mode,
      row.title,
      row.html,
      row.format,
      row.body,
      JSON.stringify(row.elements),
      row.created_at,
      row.expires_at,
      JSON.stringify(row.steps),
      row.step_failed,
      JSON.stringify(row.step_outcomes),
    ],
  );
}

/** Deletes all but the account's `keep` most recent previews. */
export async function discardOlderPreviews(db: Queryable, accountId: string, keep: number): Promise<void> {
  await db.query(
    `DELETE FROM previews WHERE account_id = $1 AND id NOT IN (
       SELECT id FROM previews WHERE account_id = $1 ORDER BY created_at DESC, seq DESC LIMIT $2)`,
    [accountId, keep],
  );
}

/** A preview of this account that has not expired at `at`. */
export async function findValidPreview(db: Queryable, accountId: string, id: string, at: Date): Promise<PreviewRow | null> {
  const rows = await db.query<PreviewRow>('SELECT * FROM previews WHERE id = $1 AND account_id = $2 AND expires_at > $3', [
    id,
    accountId,
    at,
  ]);
  return rows[0] ?? null;
}

export async function deleteExpiredPreviews(db: Queryable, at: Date): Promise<number> {
  const rows = await db.query('DELETE FROM previews WHERE expires_at <= $1 RETURNING id', [at]);
  return rows.length;
}

export async function lockPreviewSpacing(db: Queryable, accountId: string): Promise<Date | null> {
  const rows = await db.query<{ last_at: Date }>('SELECT last_at FROM preview_spacing WHERE account_id = $1 FOR UPDATE', [accountId]);
  return rows[0]?.last_at ?? null;
}

export async function writePreviewSpacing(db: Queryable, accountId: string, lastAt: Date | null): Promise<void> {
  if (lastAt === null) {
    await db.query('DELETE FROM preview_spacing WHERE account_id = $1', [accountId]);
    return;
  }
  await db.query(
    `INSERT INTO preview_spacing (account_id, last_at) VALUES ($1, $2)
     ON CONFLICT (account_id) DO UPDATE SET last_at = EXCLUDED.last_at`,
    [accountId, lastAt],
  );
}

/** The preview's capture as extraction reads it: an HTML page's text, or a document's bytes with their format. */
export function previewSource(row: Pick<PreviewRow, 'html' | 'format' | 'body'>): PageSource {
  return row.format === 'html' || row.body === null ? row.html : { bytes: row.body, charset: null, format: row.format };
}
