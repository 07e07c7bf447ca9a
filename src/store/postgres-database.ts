import pg from 'pg';
import type { Database, Queryable } from './database.ts';

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
    return pg.types.getTypeParser(oid, format);
  },
} as pg.CustomTypesConfig;

export async function openPostgresDatabase(options: PostgresOptions): Promise<Database> {
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.max ?? 10,
    types,
    options: options.schema ? `-c search_path=${options.schema}` : undefined,
  });
  pool.on('error', () => {
    // An idle client lost its connection; the pool replaces it on next use.
  });
  await pool.query('SELECT 1');
  const direct: Queryable = {
    async query<R>(sql: string, params?: unknown[]) {
      return (await pool.query(sql, params)).rows as R[];
    },
    async exec(sql: string) {
      await pool.query(sql);
    },
  };
  return {
    kind: 'postgres',
    query: direct.query,
    exec: direct.exec,
    async transaction(fn) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await fn({
          async query<R>(sql: string, params?: unknown[]) {
            return (await client.query(sql, params)).rows as R[];
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
    close: () => pool.end(),
  };
}
