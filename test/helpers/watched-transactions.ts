import type { Database, Queryable } from '../../src/store/database.ts';

/**
 * The store with every transaction's statements passed through `watch`.
 * Store procedures run here, through `watch`, rather than in the embedded
 * store's thread, where no test could see their statements.
 */
export function watchTransactions(db: Database, watch: (tx: Queryable) => Queryable): Database {
  const transaction = <T>(fn: (tx: Queryable) => Promise<T>) => db.transaction((tx) => fn(watch(tx)));
  return { ...db, transaction, transact: (procedure, input) => transaction((tx) => procedure.run(tx, input)) };
}
