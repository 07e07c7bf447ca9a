import type { PageValidators } from '../domain/page-validators.ts';
import type { Queryable } from './database.ts';

// The validators of each html monitor's last full answer (migration 029),
// which the claim reads with the monitor (check-leases-store.ts).

export interface ValidatorsRecord {
  monitorId: string;
  /** the monitor's configuration the page was read under */
  configVersion: number;
  /** null: forget them (the answer sent none, or its check could not read every target) */
  validators: PageValidators | null;
}

/** Stores or forgets the validators of a batch of checks in one statement; a row that would not change is not rewritten. */
export async function writePageValidators(db: Queryable, records: ValidatorsRecord[]): Promise<void> {
  if (records.length === 0) return;
  const column = <T>(pick: (r: ValidatorsRecord) => T) => records.map(pick);
  await db.query(
    `WITH v AS (
       SELECT * FROM unnest($1::uuid[], $2::int[], $3::text[], $4::text[]) AS v(monitor_id, config_version, etag, last_modified)
     ), forgotten AS (
       DELETE FROM page_validators p USING v WHERE p.monitor_id = v.monitor_id AND v.etag IS NULL AND v.last_modified IS NULL
     )
     INSERT INTO page_validators (monitor_id, config_version, etag, last_modified)
     SELECT monitor_id, config_version, etag, last_modified FROM v WHERE etag IS NOT NULL OR last_modified IS NOT NULL
     ON CONFLICT (monitor_id) DO UPDATE SET config_version = EXCLUDED.config_version, etag = EXCLUDED.etag, last_modified = EXCLUDED.last_modified
     WHERE (page_validators.config_version, page_validators.etag, page_validators.last_modified)
       IS DISTINCT FROM (EXCLUDED.config_version, EXCLUDED.etag, EXCLUDED.last_modified)`,
    [
      column((r) => r.monitorId),
      column((r) => r.configVersion),
      column((r) => r.validators?.etag ?? null),
      column((r) => r.validators?.lastModified ?? null),
    ],
  );
}
