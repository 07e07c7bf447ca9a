import type { Database } from '../../src/store/database.ts';

// PostgreSQL's autovacuum works on real time (it looks at the tables every
// minute), which a benchmark on a manual clock does not give it: simulated
// hours pass in real seconds. A plain VACUUM (not FULL, outside a transaction)
// of the benchmark schema's tables stands in for what autovacuum would have
// done meanwhile. The product does not run this; PostgreSQL does it by itself.

const SCHEMA_TABLES = `SELECT quote_ident(n.nspname) || '.' || quote_ident(c.relname) AS name
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE n.nspname = current_schema() AND c.relkind = 'r' ORDER BY c.relname`;

/** VACUUM of every table of the current schema in one statement; the milliseconds it took. */
export async function vacuumSchema(db: Database): Promise<number> {
  const tables = (await db.query<{ name: string }>(SCHEMA_TABLES)).map((r) => r.name);
  const started = performance.now();
  await db.exec(`VACUUM ${tables.join(', ')}`);
  return Math.round(performance.now() - started);
}
