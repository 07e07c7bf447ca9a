import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readBackupHeader } from '../../src/store/backup-file.ts';
import { listMigrations } from '../../src/store/migrate.ts';
import { admin, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { testDatabaseUrl } from '../helpers/test-database.ts';

// GET /admin/v1/backup, which `pagewatch backup` calls on a running server
// (test/cli/backup-restore.test.ts takes and restores one end to end).

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

test('the embedded store answers a backup file naming its schema', { skip: testDatabaseUrl ? 'embedded store only' : false }, async () => {
  const res = await admin(t.app, 'GET', '/backup');
  assert.equal(res.statusCode, 200);
  assert.equal(res.headers['content-type'], 'application/octet-stream');
  assert.equal(res.headers['cache-control'], 'no-store');
  const { header } = readBackupHeader(res.rawPayload);
  assert.deepEqual(
    header.migrations,
    listMigrations().map((m) => m.name),
  );
});

test('PostgreSQL answers 409 backup_unsupported, pointing to pg_dump', { skip: testDatabaseUrl ? false : 'PostgreSQL only' }, async () => {
  const res = await admin(t.app, 'GET', '/backup');
  assert.equal(res.statusCode, 409);
  assert.equal(res.json().error.code, 'backup_unsupported');
  assert.match(res.json().error.message, /pg_dump/);
});

test('a backup needs the operator token', async () => {
  const res = await t.app.inject({ method: 'GET', url: '/admin/v1/backup' });
  assert.equal(res.statusCode, 401);
});
