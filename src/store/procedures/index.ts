import type { Queryable, StoreProcedure } from '../database.ts';
import { claimWork, type ClaimSettings } from './claim-work.ts';
import { commitChecks } from './commit-checks.ts';

// The store procedures: the transactions that run whole inside the embedded
// store's thread (on PostgreSQL, in-process as any transaction). The thread
// imports this registry and nothing else of the program, so what they reach
// is store/ and domain/ only, and they keep no module state: the thread has
// its own copy of every module they import. test/architecture/store-procedures.test.ts
// holds them to that.

type Procedures<T> = { [K in keyof T]: T[K] extends (tx: Queryable, input: infer I) => Promise<infer O> ? StoreProcedure<I, O> : never };

/** Each function as the procedure named after its key. */
function declare<T extends Record<string, (tx: Queryable, input: never) => Promise<unknown>>>(runs: T): Procedures<T> {
  return Object.fromEntries(Object.entries(runs).map(([name, run]) => [name, { name, run }])) as Procedures<T>;
}

export const storeProcedures = declare({
  claimWork: (tx: Queryable, { settings, at }: { settings: ClaimSettings; at: Date }) => claimWork(tx, settings, at),
  commitChecks,
});

/** The procedure registered under `name`. */
export function storeProcedureNamed(name: string): StoreProcedure<unknown, unknown> {
  if (!Object.hasOwn(storeProcedures, name)) throw new Error(`the registry exports no store procedure named ${name}`);
  return storeProcedures[name as keyof typeof storeProcedures];
}
