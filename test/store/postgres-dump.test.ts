import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openDatabase } from '../../src/store/open-database.ts';
import { migrate } from '../../src/store/migrate.ts';
import { tableFingerprints } from '../../src/store/table-inventory.ts';
import { createAccountWithToken, startTestApp } from '../helpers/test-app.ts';
import { testDatabaseUrl } from '../helpers/test-database.ts';

// The PostgreSQL backup procedure of docs/operations.md (Backups), step by
// step as written there: pg_dump --format=custom, pg_restore into an empty
// database, then `pagewatch migrate` finds the schema up to date.

function hasTool(name: string): boolean {
  try {
    execFileSync(name, ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const SKIP = !testDatabaseUrl ? 'needs PostgreSQL (TEST_DATABASE_URL)' : !hasTool('pg_dump') ? 'needs pg_dump and pg_restore' : false;
const created: string[] = [];
const work = mkdtempSync(join(tmpdir(), 'pw-pgdump-'));

async function adminQuery(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: testDatabaseUrl! });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

async function freshDatabase(): Promise<string> {
  const name = `pw_dump_${randomBytes(6).toString('hex')}`;
  await adminQuery(`CREATE DATABASE ${name}`);
  created.push(name);
  const url = new URL(testDatabaseUrl!);
  url.pathname = `/${name}`;
  return url.href;
}

after(async () => {
  for (const name of created) await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  rmSync(work, { recursive: true, force: true });
});

test(
  'pg_dump and pg_restore into an empty database give a store equal table by table, whose schema is up to date',
  { skip: SKIP },
  async () => {
    const sourceUrl = await freshDatabase();
    const t = await startTestApp({ db: await openDatabase({ databaseUrl: sourceUrl, dataDir: null }) });
    let expected;
    try {
      await createAccountWithToken(t.app);
      await createAccountWithToken(t.app, { plan: 'free' });
      expected = await tableFingerprints(t.db);
    } finally {
      await t.close();
    }
    const file = join(work, 'pagewatch.dump');
    execFileSync('pg_dump', ['--format=custom', '--no-owner', `--file=${file}`, sourceUrl]);
    const targetUrl = await freshDatabase();
    execFileSync('pg_restore', ['--no-owner', '--exit-on-error', `--dbname=${targetUrl}`, file]);
    const restored = await openDatabase({ databaseUrl: targetUrl, dataDir: null, migrate: false });
    try {
      assert.deepEqual(await migrate(restored), []);
      assert.deepEqual(await tableFingerprints(restored), expected);
    } finally {
      await restored.close();
    }
  },
);
