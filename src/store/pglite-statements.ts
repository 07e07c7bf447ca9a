import { parse, protocol, type PGlite } from '@electric-sql/pglite';

// PGlite's query() parses and plans every statement it is sent. The store
// sends the same few hundred statements over and over, so the thread keeps
// each one prepared (a named statement) and then only binds and executes it,
// as planning was most of a short read's cost
// (docs/decisions/0014-prepared-statements-on-both-stores.md). PostgreSQL re-plans a prepared statement by itself when a table it reads changes.

const { serialize } = protocol;

/** How many statements stay prepared at most (least recently used goes first); the store has about 150. */
export const MAX_PREPARED_STATEMENTS = 500;

/** SQLSTATE of "cached plan must not change result type": a table changed shape under a prepared SELECT *. */
const FEATURE_NOT_SUPPORTED = '0A000';

interface Prepared {
  name: string;
  /** parameter type OIDs, which choose each value's serializer */
  types: number[];
}

export interface PreparedStatements {
  /**
   * Runs one statement, prepared on first use. `inTransaction` says the
   * caller holds an open PGlite transaction, so only the query lock is taken.
   */
  query(sql: string, params: unknown[], inTransaction: boolean): Promise<unknown[]>;
}

export function preparedStatements(db: PGlite, max = MAX_PREPARED_STATEMENTS): PreparedStatements {
  const statements = new Map<string, Prepared>();
  let next = 0;

  const prepare = async (sql: string): Promise<Prepared> => {
    const name = `pw_${next++}`;
    const messages = [serialize.parse({ name, text: sql }), serialize.describe({ type: 'S', name })];
    // After the parse: a statement that fails to parse skips the rest, so it evicts nothing.
    const oldest = statements.size >= max ? (statements.entries().next().value as [string, Prepared]) : null;
    if (oldest) messages.push(serialize.close({ type: 'S', name: oldest[1].name }));
    const described = await db.execProtocol(Buffer.concat([...messages, serialize.sync()]), { syncToFs: false });
    if (oldest) statements.delete(oldest[0]);
    const prepared = { name, types: parse.parseDescribeStatementResults(described.messages) };
    statements.set(sql, prepared);
    return prepared;
  };

  const run = async (sql: string, params: unknown[], inTransaction: boolean, retry = !inTransaction): Promise<unknown[]> => {
    let prepared = statements.get(sql);
    if (prepared) {
      // Map order is the recency order the eviction above relies on.
      statements.delete(sql);
      statements.set(sql, prepared);
    } else {
      prepared = await prepare(sql);
    }
    const values = params.map((value, i) => {
      if (value === null || value === undefined) return null;
      const serializer = db.serializers[prepared.types[i]!];
      // As PGlite's query() does for a type it has no serializer for.
      return serializer ? serializer(value) : (value as { toString(): string }).toString();
    });
    try {
      const result = await db.execProtocol(
        Buffer.concat([
          serialize.bind({ statement: prepared.name, values }),
          serialize.describe({ type: 'P' }),
          serialize.execute({}),
          serialize.sync(),
        ]),
        { syncToFs: !inTransaction },
      );
      return parse.parseResults(result.messages, db.parsers)[0]!.rows;
    } catch (err) {
      if ((err as { code?: string }).code !== FEATURE_NOT_SUPPORTED) throw err;
      statements.delete(sql);
      await db.execProtocol(Buffer.concat([serialize.close({ type: 'S', name: prepared.name }), serialize.sync()]), {
        syncToFs: false,
      });
      // Outside a transaction the failed statement left nothing behind, so it
      // can go again, prepared afresh (once: 0A000 has other causes too).
      if (!retry) throw err;
      return run(sql, params, false, false);
    }
  };

  return {
    query: (sql, params, inTransaction) =>
      inTransaction
        ? db._runExclusiveQuery(() => run(sql, params, true))
        : db._runExclusiveTransaction(() => db._runExclusiveQuery(() => run(sql, params, false))),
  };
}
