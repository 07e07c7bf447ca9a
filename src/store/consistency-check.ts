import type { Queryable } from './database.ts';
import { quoteIdent } from './table-inventory.ts';

// What a store must hold whatever its contents, checked on a store that was
// not written through pagewatch's own statements (a restored backup): opening
// it has verified its schema already; this reads the rows' relations.

interface ForeignKey {
  name: string;
  child: string;
  parent: string;
  child_columns: string[];
  parent_columns: string[];
}

/** The schema's foreign keys, each with its columns in order. */
async function foreignKeys(db: Queryable): Promise<ForeignKey[]> {
  return db.query<ForeignKey>(
    `SELECT c.conname AS name, child.relname AS child, parent.relname AS parent,
            array(SELECT a.attname::text FROM unnest(c.conkey) WITH ORDINALITY k(n, i)
                    JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n ORDER BY k.i) AS child_columns,
            array(SELECT a.attname::text FROM unnest(c.confkey) WITH ORDINALITY k(n, i)
                    JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.n ORDER BY k.i) AS parent_columns
       FROM pg_constraint c
       JOIN pg_class child ON child.oid = c.conrelid
       JOIN pg_class parent ON parent.oid = c.confrelid
      WHERE c.contype = 'f' AND c.connamespace = current_schema()::regnamespace
      ORDER BY child.relname, c.conname`,
  );
}

async function orphans(db: Queryable, key: ForeignKey): Promise<number> {
  const col = (alias: string, name: string) => `${alias}.${quoteIdent(name)}`;
  const present = key.child_columns.map((c) => `${col('c', c)} IS NOT NULL`).join(' AND ');
  const match = key.child_columns.map((c, i) => `${col('p', key.parent_columns[i]!)} = ${col('c', c)}`).join(' AND ');
  const [row] = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM ${quoteIdent(key.child)} c
      WHERE ${present} AND NOT EXISTS (SELECT 1 FROM ${quoteIdent(key.parent)} p WHERE ${match})`,
  );
  return row!.n;
}

const rows = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;

/** Every problem found, one sentence each naming its table; none: the store is consistent. */
export async function consistencyProblems(db: Queryable): Promise<string[]> {
  const problems: string[] = [];
  for (const key of await foreignKeys(db)) {
    const n = await orphans(db, key);
    if (n > 0) problems.push(`${key.child}: ${rows(n, 'row')} whose ${key.name} points at no row of ${key.parent}`);
  }
  // check_state is the scheduler's view of each monitor (migration 018): without it, or with the wrong flag, checks stop or run paused.
  const [state] = await db.query<{ missing: number; disagreeing: number }>(
    `SELECT count(*) FILTER (WHERE s.monitor_id IS NULL)::int AS missing,
            count(*) FILTER (WHERE s.active IS DISTINCT FROM (m.status = 'active') AND s.monitor_id IS NOT NULL)::int AS disagreeing
       FROM monitors m LEFT JOIN check_state s ON s.monitor_id = m.id`,
  );
  if (state!.missing > 0) problems.push(`monitors: ${rows(state!.missing, 'monitor')} without its check state`);
  if (state!.disagreeing > 0)
    problems.push(`monitors: ${rows(state!.disagreeing, 'monitor')} whose check state's active flag disagrees with its status`);
  return problems;
}
