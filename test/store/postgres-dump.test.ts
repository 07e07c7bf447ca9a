import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../src/store/open-database.ts';
import { migrate } from '../../src/store/migrate.ts';
import { tableFingerprints } from '../../src/store/table-inventory.ts';
import { createAccountWithToken, startTestApp } from '../helpers/test-app.ts';
import { testDatabaseUrl } from '../helpers/test-database.ts';
import { useScratchDatabases } from '../helpers/scratch-databases.ts';

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
const freshDatabase = useScratchDatabases('pw_dump');
const work = mkdtempSync(join(tmpdir(), 'pw-pgdump-'));

after(() => {
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
