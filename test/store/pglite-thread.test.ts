import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { randomUUID } from 'node:crypto';
import type { Database } from '../../src/store/database.ts';
import { DataDirLockedError } from '../../src/store/data-dir-lock.ts';
import { openPgliteThreadDatabase } from '../../src/store/pglite-thread-database.ts';
import { migrate } from '../../src/store/migrate.ts';
import { storeProcedures } from '../../src/store/procedures/index.ts';
import { DEFAULT_PLANS } from '../../src/domain/plans.ts';
import { insertMonitorRow } from '../helpers/monitor-rows.ts';
import { migratedSnapshot, seedDataDir } from '../helpers/migrated-snapshot.ts';
import { signal } from '../helpers/signal.ts';
import { useTempDataDirs } from '../helpers/temp-dirs.ts';

// The embedded store runs PGlite in a worker thread (whatever TEST_DATABASE_URL
// says, this is the embedded store's own behaviour).

const run = promisify(execFile);
const freshDir = useTempDataDirs('pw-thread-');
/** a store with the schema (for the store procedures) and a table of items */
let db: Database;
before(async () => {
  db = await openPgliteThreadDatabase(null, migratedSnapshot() ?? null);
  await migrate(db);
  await db.exec('CREATE TABLE items (id integer PRIMARY KEY, name text NOT NULL)');
});
after(() => db.close());

const CLAIM_SETTINGS = { plans: DEFAULT_PLANS, capacity: 1, leaseSeconds: 60, hostConcurrency: 2, tickSeconds: 60 };

/** A Pro account with one monitor due at `dueAt`. */
async function dueMonitor(dueAt: Date): Promise<{ accountId: string; monitorId: string }> {
  const accountId = randomUUID();
  await db.query("INSERT INTO accounts (id, email, plan, created_at, updated_at) VALUES ($1, $2, 'pro', now(), now())", [
    accountId,
    `${accountId}@example.test`,
  ]);
  const monitorId = await insertMonitorRow(db, { accountId, url: 'http://127.0.0.1:9/', targets: [], nextCheckAt: dueAt });
  return { accountId, monitorId };
}

test('rows, parameters and types come back as the in-process store gives them', async () => {
  const [row] = await db.query<{ n: number; at: Date; doc: { a: number[] }; big: number }>(
    `SELECT $1::int AS n, $2::timestamptz AS at, $3::jsonb AS doc, 9007199254740991::bigint AS big`,
    [7, new Date('2026-01-02T03:04:05Z'), JSON.stringify({ a: [1, 2] })],
  );
  assert.deepEqual(row, { n: 7, at: new Date('2026-01-02T03:04:05Z'), doc: { a: [1, 2] }, big: 9007199254740991 });
});

test('a statement error carries its SQLSTATE and constraint, as callers check them', async () => {
  await db.query('INSERT INTO items VALUES (1, $1)', ['one']);
  await assert.rejects(db.query('INSERT INTO items VALUES (1, $1)', ['again']), (err: Error & { code?: string; constraint?: string }) => {
    assert.equal(err.code, '23505');
    assert.equal(err.constraint, 'items_pkey');
    return true;
  });
});

test('a transaction is seen by others only once committed, and a thrown one leaves nothing', async () => {
  let seenDuring: number | null = null;
  await db.transaction(async (tx) => {
    await tx.query('INSERT INTO items VALUES (2, $1)', ['two']);
    // A statement outside the transaction waits for it to end, as on the event loop.
    const outside = db.query<{ n: number }>('SELECT count(*)::int AS n FROM items WHERE id = 2');
    seenDuring = (await tx.query<{ n: number }>('SELECT count(*)::int AS n FROM items WHERE id = 2'))[0]!.n;
    void outside.then(([r]) => assert.equal(r!.n, 1));
  });
  assert.equal(seenDuring, 1);
  await assert.rejects(
    db.transaction(async (tx) => {
      await tx.query('INSERT INTO items VALUES (3, $1)', ['three']);
      throw new Error('changed my mind');
    }),
    /changed my mind/,
  );
  assert.deepEqual(await db.query('SELECT id FROM items WHERE id = 3'), []);
});

test('a failed statement inside a transaction rolls the whole transaction back', async () => {
  await assert.rejects(
    db.transaction(async (tx) => {
      await tx.query('INSERT INTO items VALUES (4, $1)', ['four']);
      await tx.query('INSERT INTO items VALUES (4, $1)', ['duplicate']);
    }),
    (err: { code?: string }) => err.code === '23505',
  );
  assert.deepEqual(await db.query('SELECT id FROM items WHERE id = 4'), []);
  assert.deepEqual(await db.query<{ n: number }>('SELECT 1 AS n'), [{ n: 1 }], 'the store goes on');
});

test('a store procedure runs whole in the thread, one transaction, its input and output copied with their types', async () => {
  const dueAt = new Date('2026-03-04T05:00:00Z');
  const { monitorId } = await dueMonitor(dueAt);
  const claim = await db.transact(storeProcedures.claimWork, { settings: CLAIM_SETTINGS, at: new Date('2026-03-04T05:00:30Z') });
  assert.equal(claim.items.length, 1);
  assert.deepEqual(claim.items[0]!.dueAt, dueAt);
  assert.ok(claim.items[0]!.reservation.period instanceof Date);
  assert.deepEqual(await db.query('SELECT monitor_id FROM check_leases WHERE monitor_id = $1', [monitorId]), [{ monitor_id: monitorId }]);
});

test('a store procedure that fails leaves nothing and its error keeps its SQLSTATE and constraint', async () => {
  const { accountId } = await dueMonitor(new Date('2026-03-05T05:00:00Z'));
  // The claim reserves the check's allowance, then fails writing its lease.
  await db.exec('ALTER TABLE check_leases ADD CONSTRAINT no_new_leases CHECK (false) NOT VALID');
  try {
    await assert.rejects(
      db.transact(storeProcedures.claimWork, { settings: CLAIM_SETTINGS, at: new Date('2026-03-05T05:00:30Z') }),
      (err: Error & { code?: string; constraint?: string }) => {
        assert.equal(err.code, '23514');
        assert.equal(err.constraint, 'no_new_leases');
        return true;
      },
    );
    assert.deepEqual(await db.query('SELECT 1 FROM usage_counters WHERE account_id = $1', [accountId]), []);
  } finally {
    await db.exec('ALTER TABLE check_leases DROP CONSTRAINT no_new_leases');
  }
});

test('a store procedure the thread cannot find is refused with its name', async () => {
  const misnamed = { name: 'notExported', run: async () => null };
  await assert.rejects(db.transact(misnamed, undefined), /exports no store procedure named notExported/);
});

test('notifications reach listeners through the thread, and stop once unsubscribed', async () => {
  const heard: string[] = [];
  const first = signal();
  const unlisten = await db.listen(
    'thread_news',
    (payload) => {
      heard.push(payload);
      first.resolve();
    },
    () => undefined,
  );
  await db.query("SELECT pg_notify('thread_news', 'first')");
  await first.promise;
  await unlisten();
  await db.query("SELECT pg_notify('thread_news', 'second')");
  // The thread answers in order: once a later listener hears 'third', 'second' would have reached the first by then.
  const third = signal();
  const unlistenLater = await db.listen(
    'thread_news',
    (payload) => payload === 'third' && third.resolve(),
    () => undefined,
  );
  await db.query("SELECT pg_notify('thread_news', 'third')");
  await third.promise;
  await unlistenLater();
  assert.deepEqual(heard, ['first']);
});

test('the data directory is locked by the thread store like the in-process one, and released on close', async () => {
  const dir = seedDataDir(freshDir());
  const first = await openPgliteThreadDatabase(dir);
  try {
    await assert.rejects(openPgliteThreadDatabase(dir), (err) => err instanceof DataDirLockedError);
  } finally {
    await first.close();
  }
  const again = await openPgliteThreadDatabase(dir);
  await again.close();
  await assert.rejects(again.query('SELECT 1'), /closed/, 'statements after close are refused, not left waiting');
});

test('a new data directory opens ready to use, and what was written is there after a reopen', async () => {
  const dir = freshDir();
  const created = await openPgliteThreadDatabase(dir);
  await created.exec('CREATE TABLE kept (id integer PRIMARY KEY)');
  await created.query('INSERT INTO kept VALUES (1)');
  await created.close();
  const reopened = await openPgliteThreadDatabase(dir);
  try {
    assert.deepEqual(await reopened.query('SELECT id FROM kept'), [{ id: 1 }]);
  } finally {
    await reopened.close();
  }
});

test('an idle open store does not keep the process alive, and a closed one leaves no thread running', async () => {
  const script = fileURLToPath(new URL('../helpers/open-thread-store.ts', import.meta.url));
  await Promise.all(
    ['idle', 'closed'].map(async (mode) => {
      // The timeout is what fails the test if a thread keeps the process alive.
      const { stdout } = await run(process.execPath, ['--import', 'tsx', script, mode], { timeout: 90_000 });
      assert.match(stdout, /queried/, mode);
    }),
  );
});
