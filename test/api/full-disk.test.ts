import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { bearer, createAccountWithToken, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.ts';
import { loadPreview, postMonitor, TITLE_TARGET } from '../helpers/monitor-api.ts';
import { openTestDatabase, testDatabaseUrl } from '../helpers/test-database.ts';
import { adminQuery } from '../helpers/scratch-databases.ts';
import { openDatabase } from '../../src/store/open-database.ts';
import { canMount, mountTinyDisk, type TinyDisk } from '../helpers/tiny-disk.ts';
import type { Database } from '../../src/store/database.ts';
import { createLogger } from '../../src/http/logger.ts';

// A disk that is full is an outage, not a bug: a write that finds no room is
// 503 storage_unavailable with Retry-After, rolled back whole, and the same
// request succeeds once room is back. The embedded store keeps its data
// directory on a small tmpfs; PostgreSQL keeps the monitors table in a
// tablespace on one.
let t: TestApp;
let site: FixtureServer;
let disk: TinyDisk;
let tablespace: string | null = null;
const logged: { level: number; msg: string; err?: { message: string } }[] = [];
const logSink = new Writable({
  write(chunk: Buffer, _encoding, done) {
    for (const line of chunk.toString().split('\n')) if (line) logged.push(JSON.parse(line));
    done();
  },
});

function idsOf(name: string): { uid: number; gid: number } {
  const [uid, gid] = ['-u', '-g'].map((flag) => Number(execFileSync('id', [flag, name]).toString().trim()));
  return { uid: uid!, gid: gid! };
}

/** The PostgreSQL store with its monitors table on the tiny disk. */
async function postgresOnTinyDisk(): Promise<Database> {
  disk = mountTinyDisk(2, idsOf('postgres'));
  tablespace = `pagewatch_full_${randomBytes(4).toString('hex')}`;
  await adminQuery(`CREATE TABLESPACE ${tablespace} LOCATION '${disk.path}'`);
  // Not a moved store (PAGEWATCH_TEST_MOVED_STORE): its monitors table would
  // already hold a page with room for another row, so no write would reach the disk.
  const db = await openTestDatabase({ moved: false });
  await db.exec(`ALTER TABLE monitors SET TABLESPACE ${tablespace}`);
  return db;
}

/** The embedded store with its whole data directory on the tiny disk. */
async function embeddedOnTinyDisk(): Promise<Database> {
  disk = mountTinyDisk(96);
  return openDatabase({ databaseUrl: null, dataDir: join(disk.path, 'data') });
}

const SKIP = !canMount && 'needs root to mount a small tmpfs';

before(async () => {
  if (SKIP) return;
  const db = testDatabaseUrl ? await postgresOnTinyDisk() : await embeddedOnTinyDisk();
  t = await startTestApp({ db, logger: createLogger('warn', logSink) });
  site = await startFixtureServer();
});
after(async () => {
  if (SKIP) return;
  await site.close();
  await t.close();
  if (tablespace) await adminQuery(`DROP TABLESPACE ${tablespace}`);
  disk.unmount();
});

test(
  'a write that finds the disk full is 503 storage_unavailable with Retry-After and a warning in the log, and nothing of it is kept',
  { skip: SKIP },
  async () => {
    const { token } = await createAccountWithToken(t.app);
    const previewId = await loadPreview(t.app, token, `${site.url}/shop/espresso.html`);
    const body = { preview_id: previewId, targets: [TITLE_TARGET], interval_minutes: 5 };

    disk.fill();
    const full = await postMonitor(t.app, token, body, 'full-disk-1');
    disk.free();
    assert.equal(full.statusCode, 503, full.body);
    assert.equal(full.json().error.code, 'storage_unavailable');
    assert.ok(Number(full.headers['retry-after']) > 0);
    const warning = logged.find((line) => line.msg === 'store outage');
    assert.equal(warning?.level, 40, "the operator hears of it, as a warning with the store's own error");
    assert.match(warning?.err?.message ?? '', /No space left on device/);

    const list = await t.app.inject({ method: 'GET', url: '/api/v1/monitors', headers: bearer(token) });
    assert.deepEqual(list.json().data, []);
    const retried = await postMonitor(t.app, token, body, 'full-disk-1');
    assert.equal(retried.statusCode, 201, 'the same idempotency key is free again: its record was rolled back with the write');
  },
);
