// One SQL dialect (PostgreSQL) behind two adapters: embedded PGlite and a real
// PostgreSQL server. Repositories take a Queryable, so the same function runs
// alone or inside a transaction.

export interface Queryable {
  query<R = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<R[]>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

export interface Database extends Queryable {
  readonly kind: 'pglite' | 'postgres';
  /** Runs fn in one transaction: commits when it resolves, rolls back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /**
   * Subscribes to NOTIFY on `channel` (a lower-case identifier), from every
   * process using the store. `onReset` runs when notifications may have been
   * missed (the listening connection was lost, and again once it is back).
   * Resolves, once listening, to the unsubscribe function.
   */
  listen(channel: string, onMessage: (payload: string) => void, onReset: () => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}
