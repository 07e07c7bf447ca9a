// One SQL dialect (PostgreSQL) behind two adapters: embedded PGlite and a real
// PostgreSQL server. Repositories take a Queryable, so the same function runs
// alone or inside a transaction.

export interface Queryable {
  query<R = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<R[]>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

/**
 * A transaction's work that the store runs where its data is: the embedded
 * store runs it in its own thread, so the transaction holds the store for its
 * statements only, not for a round trip to a busy event loop per statement.
 * Every procedure is declared in store/procedures/index.ts, the one registry
 * the thread runs them from, by `name`; their input and output are copied
 * between threads (plain data, Dates, Maps; Errors inside the output keep
 * their message only). What it throws keeps its PostgreSQL fields.
 */
export interface StoreProcedure<I, O> {
  readonly name: string;
  run(tx: Queryable, input: I): Promise<O>;
}

/** The embedded store's data directory as a tarball, and how long the store was held still to copy it. */
export interface DataDirDump {
  tarball: Uint8Array<ArrayBuffer>;
  heldMs: number;
}

export interface Database extends Queryable {
  readonly kind: 'pglite' | 'postgres';
  /** Runs fn in one transaction: commits when it resolves, rolls back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Runs a procedure in one transaction, where the store is (see StoreProcedure). */
  transact<I, O>(procedure: StoreProcedure<I, O>, input: I): Promise<O>;
  /**
   * Subscribes to NOTIFY on `channel` (a lower-case identifier), from every
   * process using the store. `onReset` runs when notifications may have been
   * missed (the listening connection was lost, and again once it is back).
   * Resolves, once listening, to the unsubscribe function.
   */
  listen(channel: string, onMessage: (payload: string) => void, onReset: () => void): Promise<() => Promise<void>>;
  /** The embedded store only: a consistent copy of its data directory, taken while it runs. */
  dumpDataDir?(): Promise<DataDirDump>;
  close(): Promise<void>;
}
