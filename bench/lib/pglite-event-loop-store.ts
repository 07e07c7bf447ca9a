import { PGlite, type Transaction } from '@electric-sql/pglite';
import type { Database, Queryable } from '../../src/store/database.ts';
import { lockEmbeddedDataDir } from '../../src/store/data-dir-lock.ts';

// PGlite on the caller's event loop, as the embedded store was before it moved
// to a thread of its own (src/store/pglite-thread-database.ts): kept for the
// API benchmark's comparison only ('pglite-loop').

function wrap(target: PGlite | Transaction): Queryable {
  return {
    async query<R>(sql: string, params?: unknown[]) {
      const result = await target.query<R>(sql, params);
      return result.rows;
    },
    async exec(sql: string) {
      await target.exec(sql);
    },
  };
}

/** Embedded PGlite on this event loop: in memory when dataDir is null, else in that directory (locked). */
export async function openPgliteEventLoopStore(dataDir: string | null): Promise<Database> {
  const lock = lockEmbeddedDataDir(dataDir);
  let db: PGlite;
  try {
    db = dataDir === null ? new PGlite() : new PGlite(dataDir);
    await db.waitReady;
  } catch (err) {
    lock?.release();
    throw err;
  }
  const direct = wrap(db);
  return {
    kind: 'pglite',
    ...direct,
    transaction: (fn) => db.transaction((tx) => fn(wrap(tx))),
    transact: (procedure, input) => db.transaction((tx) => procedure.run(wrap(tx), input)),
    // In-process: nothing can be missed, so onReset never runs.
    async listen(channel, onMessage) {
      const unlisten = await db.listen(channel, onMessage);
      // A closed database has no subscriptions left to end.
      return async () => {
        if (!db.closed) await unlisten();
      };
    },
    async close() {
      await db.close();
      lock?.release();
    },
  };
}
