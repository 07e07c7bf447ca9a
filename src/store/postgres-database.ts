import pg from 'pg';
import type { Database, Queryable } from './database.ts';
import { isPreparable } from './preparable.ts';

export interface PostgresOptions {
  connectionString: string;
  /** schema to use as search_path (tests use one fresh schema per file); default: the server's */
  schema?: string;
  /** pool size, default 10 */
  max?: number;
}

// int8 (counts, byte totals) as numbers: every value we store fits in 2^53.
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === 20) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format) as (value: string) => unknown;
  },
};

const RELISTEN_DELAY_MS = 1000;

/**
 * How many distinct statements get a name, so each connection parses and
 * plans them once (docs/decisions/0014-prepared-statements-on-both-stores.md); past that,
 * statements run unnamed, which keeps the connections' memory bounded.
 */
export const MAX_NAMED_STATEMENTS = 500;

/** SQLSTATE of "cached plan must not change result type": a table changed shape (another node migrated). */
const FEATURE_NOT_SUPPORTED = '0A000';

/**
 * Runs statements named, up to `max` distinct ones. A name whose result type
 * went stale (another node migrated a table under it) is retired for a fresh one.
 */
function namedStatements(max: number) {
  const names = new Map<string, string>();
  let next = 0;
  const run = async <R>(target: pg.Pool | pg.PoolClient, text: string, values?: unknown[], retry = true): Promise<R[]> => {
    let name = names.get(text);
    if (name === undefined && names.size < max && isPreparable(text)) {
      name = `pw_${next++}`;
      names.set(text, name);
    }
    try {
      return (await target.query(name === undefined ? { text, values } : { name, text, values })).rows as R[];
    } catch (err) {
      if (name === undefined || (err as { code?: string }).code !== FEATURE_NOT_SUPPORTED) throw err;
      names.delete(text);
      // Outside a transaction (the pool) the failed statement left nothing
      // behind, so it can go again, named afresh (once: 0A000 has other causes too).
      if (retry && target instanceof pg.Pool) return run<R>(target, text, values, false);
      throw err;
    }
  };
  return run;
}

/**
 * LISTEN on a connection of its own (a pooled one would be handed to others).
 * A lost connection is re-established every RELISTEN_DELAY_MS until it is
 * back; onReset runs on the loss and on the return, as notifications sent in
 * between are gone.
 */
async function listenOn(
  clientConfig: pg.ClientConfig,
  channel: string,
  onMessage: (payload: string) => void,
  onReset: () => void,
): Promise<() => Promise<void>> {
  if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`invalid channel name ${channel}`);
  let client: pg.Client | null = null;
  let stopped = false;
  let retry: NodeJS.Timeout | null = null;
  const connect = async (): Promise<void> => {
    // Named, so an operator can tell it in pg_stat_activity.
    const next = new pg.Client({ ...clientConfig, application_name: `pagewatch listener ${process.pid}` });
    next.on('notification', (message) => onMessage(message.payload ?? ''));
    next.on('error', () => undefined);
    next.on('end', () => {
      if (stopped || client !== next) return;
      client = null;
      onReset();
      retry = setTimeout(reconnect, RELISTEN_DELAY_MS);
    });
    try {
      await next.connect();
      await next.query(`LISTEN ${channel}`);
    } catch (err) {
      await next.end().catch(() => undefined);
      throw err;
    }
    client = next;
  };
  const reconnect = () => {
    retry = null;
    if (stopped) return;
    connect().then(onReset, () => {
      if (!stopped) retry = setTimeout(reconnect, RELISTEN_DELAY_MS);
    });
  };
  await connect();
  return async () => {
    stopped = true;
    if (retry) clearTimeout(retry);
    await client?.end().catch(() => undefined);
  };
}

export async function openPostgresDatabase(options: PostgresOptions): Promise<Database> {
  const clientConfig: pg.ClientConfig = {
    connectionString: options.connectionString,
    types,
    options: options.schema ? `-c search_path=${options.schema}` : undefined,
  };
  const pool = new pg.Pool({ ...clientConfig, max: options.max ?? 10 });
  pool.on('error', () => {
    // An idle client lost its connection; the pool replaces it on next use.
  });
  await pool.query('SELECT 1');
  const run = namedStatements(MAX_NAMED_STATEMENTS);
  const direct: Queryable = {
    async query<R>(sql: string, params?: unknown[]) {
      return run<R>(pool, sql, params);
    },
    async exec(sql: string) {
      await pool.query(sql);
    },
  };
  const database: Database = {
    kind: 'postgres',
    ...direct,
    async transaction(fn) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await fn({
          async query<R>(sql: string, params?: unknown[]) {
            return run<R>(client, sql, params);
          },
          async exec(sql: string) {
            await client.query(sql);
          },
        });
        await client.query('COMMIT');
        return result;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      } finally {
        client.release();
      }
    },
    transact: (procedure, input) => database.transaction((tx) => procedure.run(tx, input)),
    listen: (channel, onMessage, onReset) => listenOn(clientConfig, channel, onMessage, onReset),
    close: () => pool.end(),
  };
  return database;
}
