import { isMainThread } from 'node:worker_threads';
import { storeProcedure } from '../../src/store/database.ts';

// Store procedures for the tests of where and how a store runs them.

/** Inserts the items, then answers where it ran and what the store holds. */
export const insertItems = storeProcedure(
  import.meta.url,
  'insertItems',
  async (tx, input: { items: { id: number; name: string }[]; at: Date }) => {
    for (const { id, name } of input.items) await tx.query('INSERT INTO items VALUES ($1, $2)', [id, name]);
    const [{ n }] = (await tx.query<{ n: number }>('SELECT count(*)::int AS n FROM items')) as [{ n: number }];
    return { inMainThread: isMainThread, count: n, at: input.at, names: new Map(input.items.map((item) => [item.id, item.name])) };
  },
);

/** A procedure exported under another name than the one it declares. */
export const misnamed = storeProcedure(import.meta.url, 'notExported', async () => null);
