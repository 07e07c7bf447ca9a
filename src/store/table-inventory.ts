import type { Database, Queryable } from './database.ts';

// What a store holds, table by table, in terms two stores can be compared by:
// used to check a restored store and a store moved to PostgreSQL.

/** The store's tables (of its current schema), by name. */
export async function listTables(db: Queryable): Promise<string[]> {
  const rows = await db.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_class c
      WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p')
      ORDER BY c.relname`,
  );
  return rows.map((r) => r.name);
}

export const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;

export async function tableRowCounts(db: Queryable): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of await listTables(db)) {
    const [row] = await db.query<{ n: string }>(`SELECT count(*)::text AS n FROM ${quoteIdent(table)}`);
    counts[table] = Number(row!.n);
  }
  return counts;
}

export interface TableFingerprint {
  rows: number;
  /** MD5 over the rows' JSON forms, sorted: equal for equal contents whatever the physical order */
  checksum: string;
}

/**
 * Each table's row count and content checksum. Rows are written as JSON in UTC
 * with exact floats, so that PGlite and PostgreSQL write equal rows alike.
 */
export async function tableFingerprints(db: Database): Promise<Record<string, TableFingerprint>> {
  return db.transaction(async (tx) => {
    await tx.query("SET LOCAL TimeZone = 'UTC'");
    await tx.query('SET LOCAL extra_float_digits = 1');
    const fingerprints: Record<string, TableFingerprint> = {};
    for (const table of await listTables(tx)) {
      const [row] = await tx.query<{ n: string; checksum: string }>(
        `SELECT count(*)::text AS n, md5(coalesce(string_agg(h, '' ORDER BY h), '')) AS checksum
           FROM (SELECT md5(row_to_json(t)::text) AS h FROM ${quoteIdent(table)} t) rows`,
      );
      fingerprints[table] = { rows: Number(row!.n), checksum: row!.checksum };
    }
    return fingerprints;
  });
}
