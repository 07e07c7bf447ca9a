import type { Queryable } from './database.ts';

// A savepoint taken only when the first statement runs through it: a part of
// a transaction that turns out to write nothing costs no statement, and one
// that fails can be undone without losing the rest of the transaction.

export interface LazySavepoint {
  /** the transaction, opening the savepoint before its first statement */
  tx: Queryable;
  release(): Promise<void>;
  rollback(): Promise<void>;
}

export function lazySavepoint(tx: Queryable, name: string): LazySavepoint {
  let opened = false;
  const open = async () => {
    if (opened) return;
    opened = true;
    await tx.query(`SAVEPOINT ${name}`);
  };
  return {
    tx: {
      async query(sql, params) {
        await open();
        return tx.query(sql, params);
      },
      async exec(sql) {
        await open();
        await tx.exec(sql);
      },
    },
    async release() {
      if (opened) await tx.query(`RELEASE SAVEPOINT ${name}`);
    },
    async rollback() {
      if (opened) await tx.query(`ROLLBACK TO SAVEPOINT ${name}`);
    },
  };
}
