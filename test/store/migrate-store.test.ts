import { before, mock, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { loadConfig } from '../../src/config.ts';
import { migrateStoreCommand } from '../../src/cli/migrate-store-command.ts';
import type { Database } from '../../src/store/database.ts';
import { openDatabase } from '../../src/store/open-database.ts';
import { tableFingerprints } from '../../src/store/table-inventory.ts';
import { startFixtureServer } from '../helpers/fixture-server.ts';
import { populateStore } from '../helpers/populated-store.ts';
import { bearer, startTestApp } from '../helpers/test-app.ts';
import { useTempDataDirs } from '../helpers/temp-dirs.ts';
import { testDatabaseUrl } from '../helpers/test-database.ts';
import { useScratchDatabases } from '../helpers/scratch-databases.ts';
import { TITLE } from '../helpers/watched-page.ts';
import { loadPreview, postMonitor } from '../helpers/monitor-api.ts';
import { serveShop } from '../helpers/shop-page.ts';

// `pagewatch migrate-store --to URL`: an embedded store with monitors, check
// history, changes, tokens and queued deliveries moved into a PostgreSQL
// database of its own, made for this file and dropped after it.

const SKIP = testDatabaseUrl ? false : 'needs PostgreSQL (TEST_DATABASE_URL)';
const newDataDir = useTempDataDirs('pw-migrate-store-');
const freshDatabase = useScratchDatabases('pw_migrate');
let dataDir: string;
let token: string;
let monitorId: string;
let expected: Awaited<ReturnType<typeof tableFingerprints>>;

async function migrateStore(to: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const error = mock.method(console, 'error', () => {});
  const log = mock.method(console, 'log', () => {});
  try {
    const code = await migrateStoreCommand(['--to', to], loadConfig({ PAGEWATCH_DATA_DIR: dataDir }));
    const text = (m: typeof error) => m.mock.calls.map((c) => c.arguments.join(' ')).join('\n');
    return { code, stdout: text(log), stderr: text(error) };
  } finally {
    error.mock.restore();
    log.mock.restore();
  }
}

before(async () => {
  if (SKIP) return;
  dataDir = newDataDir();
  const db = await openDatabase({ databaseUrl: null, dataDir });
  try {
    ({ token, monitorId } = await populateStore(db));
    expected = await tableFingerprints(db);
  } finally {
    await db.close();
  }
});

test('the embedded store fixture holds monitors, check history, changes, tokens and queued deliveries', { skip: SKIP }, () => {
  for (const table of ['monitors', 'check_runs', 'changes', 'api_tokens', 'notification_outbox']) {
    assert.ok((expected[table]?.rows ?? 0) > 0, `${table} has rows: ${JSON.stringify(expected[table])}`);
  }
});

test('migrate-store copies every table into an empty PostgreSQL database, equal in row count and checksum', { skip: SKIP }, async () => {
  const url = await freshDatabase();
  const res = await migrateStore(url);
  assert.equal(res.code, 0, res.stderr);
  assert.match(res.stdout, /copied and compared, every table equal/);
  const target = await openDatabase({ databaseUrl: url, dataDir: null, migrate: false });
  try {
    assert.deepEqual(await tableFingerprints(target), expected);
  } finally {
    await target.close();
  }
});

test(
  'the API answers from the moved store as it did from the embedded one, and new rows follow the copied sequences',
  { skip: SKIP },
  async () => {
    const url = await freshDatabase();
    assert.equal((await migrateStore(url)).code, 0);
    const moved: Database = await openDatabase({ databaseUrl: url, dataDir: null });
    const t = await startTestApp({ db: moved });
    const site = await startFixtureServer();
    try {
      const monitors = await t.app.inject({ method: 'GET', url: '/api/v1/monitors', headers: bearer(token) });
      assert.equal(monitors.statusCode, 200, monitors.body);
      assert.deepEqual(
        monitors.json().data.map((m: { id: string }) => m.id),
        [monitorId],
      );
      const changes = await t.app.inject({ method: 'GET', url: `/api/v1/changes?monitor_id=${monitorId}`, headers: bearer(token) });
      assert.equal(changes.statusCode, 200, changes.body);
      assert.equal(changes.json().data.length, 2);
      const checks = await t.app.inject({ method: 'GET', url: `/api/v1/monitors/${monitorId}/checks`, headers: bearer(token) });
      assert.equal(checks.statusCode, 200, checks.body);
      assert.equal(checks.json().data.length, 3);
      const seqBefore = await moved.query<{ seq: string }>('SELECT max(seq)::text AS seq FROM monitors');
      serveShop(site, '/after-the-move.html');
      const previewId = await loadPreview(t.app, token, `${site.url}/after-the-move.html`);
      const another = await postMonitor(t.app, token, { preview_id: previewId, targets: [TITLE], interval_minutes: 5 });
      assert.equal(another.statusCode, 201, another.body);
      const [row] = await moved.query<{ seq: string }>('SELECT seq::text AS seq FROM monitors WHERE id = $1', [another.json().data.id]);
      assert.ok(BigInt(row!.seq) > BigInt(seqBefore[0]!.seq), 'the identity sequence continues after the copied rows');
    } finally {
      await site.close();
      await t.close();
    }
  },
);

test('migrate-store refuses a database that is not empty, and changes nothing in it', { skip: SKIP }, async () => {
  const url = await freshDatabase();
  const occupied = new pg.Client({ connectionString: url });
  await occupied.connect();
  await occupied.query('CREATE TABLE notes (body text)');
  await occupied.end();
  const res = await migrateStore(url);
  assert.equal(res.code, 1);
  assert.match(res.stderr, /the target database is not empty .*: migrate-store copies into an empty database only/);
  const target = await openDatabase({ databaseUrl: url, dataDir: null, migrate: false });
  try {
    assert.deepEqual(Object.keys(await tableFingerprints(target)), ['notes']);
  } finally {
    await target.close();
  }
});

test('migrate-store refuses an embedded store a running server holds', { skip: SKIP }, async () => {
  const running = await openDatabase({ databaseUrl: null, dataDir });
  try {
    const res = await migrateStore(await freshDatabase());
    assert.equal(res.code, 1);
    assert.match(res.stderr, /is in use by process \d+/);
  } finally {
    await running.close();
  }
});
