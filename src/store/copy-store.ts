import type { Database, Queryable } from './database.ts';
import { migrate } from './migrate.ts';
import { listTables, quoteIdent, tableFingerprints, type TableFingerprint } from './table-inventory.ts';

// `pagewatch migrate-store`: an embedded store copied into an empty PostgreSQL
// database. The target gets its schema from the same migrations, then every
// table's rows (as JSON, so that every type crosses exactly) and every
// sequence's position, in one transaction; then both stores are compared
// table by table, row count and content checksum.

const PAGE_ROWS = 500;

export class StoreCopyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoreCopyError';
  }
}

export interface StoreCopyReport {
  tables: Record<string, TableFingerprint>;
  sequences: Record<string, string>;
}

async function assertEmpty(target: Queryable): Promise<void> {
  const [row] = await target.query<{ n: string }>(
    `SELECT count(*)::text AS n FROM pg_class WHERE relnamespace = current_schema()::regnamespace AND relkind IN ('r', 'p', 'S', 'v', 'm')`,
  );
  if (Number(row!.n) > 0) {
    throw new StoreCopyError(
      `the target database is not empty (${row!.n} tables, sequences or views in its schema): migrate-store copies into an empty database only`,
    );
  }
}

/** Tables in an order in which each comes after the tables its foreign keys point to. */
async function parentsFirst(db: Queryable, tables: string[]): Promise<string[]> {
  const links = await db.query<{ child: string; parent: string }>(
    `SELECT c.relname AS child, p.relname AS parent
       FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid JOIN pg_class p ON p.oid = k.confrelid
      WHERE k.contype = 'f' AND k.connamespace = current_schema()::regnamespace AND c.oid <> p.oid`,
  );
  const ordered: string[] = [];
  const placed = new Set<string>();
  const place = (table: string, path: Set<string>) => {
    if (placed.has(table)) return;
    if (path.has(table)) throw new StoreCopyError(`the foreign keys of ${table} form a cycle`);
    path.add(table);
    for (const link of links) if (link.child === table) place(link.parent, path);
    path.delete(table);
    placed.add(table);
    ordered.push(table);
  };
  for (const table of tables) place(table, new Set());
  return ordered;
}

/** The columns an INSERT may name: generated ones are computed again by the target. */
async function writableColumns(db: Queryable, table: string): Promise<string[]> {
  const rows = await db.query<{ name: string }>(
    `SELECT attname AS name FROM pg_attribute
      WHERE attrelid = (quote_ident(current_schema()) || '.' || quote_ident($1))::regclass
        AND attnum > 0 AND NOT attisdropped AND attgenerated = ''
      ORDER BY attnum`,
    [table],
  );
  return rows.map((r) => r.name);
}

async function copyTable(source: Queryable, target: Queryable, table: string): Promise<void> {
  const columns = (await writableColumns(target, table)).map(quoteIdent).join(', ');
  const insert = `INSERT INTO ${quoteIdent(table)} (${columns}) OVERRIDING SYSTEM VALUE
    SELECT ${columns} FROM json_populate_recordset(NULL::${quoteIdent(table)}, $1::json)`;
  // Paged by physical position: the source is not written to while it is copied (its data directory is locked).
  let after = '(0,0)';
  for (;;) {
    const page = await source.query<{ at: string; row: string }>(
      `SELECT ctid::text AS at, row_to_json(t)::text AS row FROM ${quoteIdent(table)} t WHERE ctid > $1::tid ORDER BY ctid LIMIT ${PAGE_ROWS}`,
      [after],
    );
    if (page.length === 0) return;
    await target.query(insert, [`[${page.map((r) => r.row).join(',')}]`]);
    after = page.at(-1)!.at;
  }
}

async function sequencePositions(db: Queryable): Promise<Record<string, string>> {
  const names = await db.query<{ name: string }>(
    `SELECT relname AS name FROM pg_class WHERE relnamespace = current_schema()::regnamespace AND relkind = 'S' ORDER BY relname`,
  );
  const positions: Record<string, string> = {};
  for (const { name } of names) {
    const [row] = await db.query<{ last_value: string; is_called: boolean }>(
      `SELECT last_value::text AS last_value, is_called FROM ${quoteIdent(name)}`,
    );
    positions[name] = `${row!.last_value}${row!.is_called ? '' : ' (not called)'}`;
  }
  return positions;
}

function differences(source: Record<string, unknown>, target: Record<string, unknown>): string[] {
  const names = new Set([...Object.keys(source), ...Object.keys(target)]);
  return [...names].filter((name) => JSON.stringify(source[name]) !== JSON.stringify(target[name]));
}

/**
 * Copies `source` (an embedded store, up to date and not in use) into `target`
 * (an empty PostgreSQL database), then compares them. Throws StoreCopyError,
 * naming the tables, when they differ.
 */
export async function copyStore(source: Database, target: Database, onTable: (table: string) => void = () => {}): Promise<StoreCopyReport> {
  await assertEmpty(target);
  await migrate(target);
  const tables = await listTables(source);
  const targetTables = await listTables(target);
  if (tables.join() !== targetTables.join()) {
    throw new StoreCopyError(`the two schemas differ: embedded ${tables.join(', ')}; PostgreSQL ${targetTables.join(', ')}`);
  }
  const ordered = await parentsFirst(target, tables);
  const sequences = await sequencePositions(source);
  await target.transaction(async (tx) => {
    // The migrations' seed rows are replaced by the source's; triggers (counters, notifications) stay out of the copy.
    await tx.query(`TRUNCATE ${ordered.map(quoteIdent).join(', ')}`);
    for (const table of ordered) await tx.query(`ALTER TABLE ${quoteIdent(table)} DISABLE TRIGGER USER`);
    for (const table of ordered) {
      onTable(table);
      await copyTable(source, tx, table);
    }
    for (const table of ordered) await tx.query(`ALTER TABLE ${quoteIdent(table)} ENABLE TRIGGER USER`);
    for (const [name, position] of Object.entries(sequences)) {
      const [value, notCalled] = position.split(' ');
      await tx.query('SELECT setval($1::regclass, $2::bigint, $3)', [quoteIdent(name), value, notCalled === undefined]);
    }
  });
  const [expected, found] = await Promise.all([tableFingerprints(source), tableFingerprints(target)]);
  const unequal = differences(expected, found);
  const movedSequences = await sequencePositions(target);
  unequal.push(...differences(sequences, movedSequences).map((name) => `sequence ${name}`));
  if (unequal.length > 0) throw new StoreCopyError(`the copy differs from the embedded store in ${unequal.join(', ')}`);
  return { tables: found, sequences: movedSequences };
}
