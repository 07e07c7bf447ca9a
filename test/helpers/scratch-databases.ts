import { after } from 'node:test';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { testDatabaseUrl } from './test-database.ts';

/** One statement on the test server, outside any database a test uses (CREATE/DROP DATABASE, TABLESPACE). */
export async function adminQuery(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: testDatabaseUrl! });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * Fresh, empty databases on the test server named `<prefix>_<random>`, each
 * dropped when the calling test file ends. Call at the top level of the file.
 */
export function useScratchDatabases(prefix: string): () => Promise<string> {
  const created: string[] = [];
  after(async () => {
    for (const name of created) await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  });
  return async () => {
    const name = `${prefix}_${randomBytes(6).toString('hex')}`;
    await adminQuery(`CREATE DATABASE ${name}`);
    created.push(name);
    const url = new URL(testDatabaseUrl!);
    url.pathname = `/${name}`;
    return url.href;
  };
}
