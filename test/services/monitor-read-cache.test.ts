import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Database } from '../../src/store/database.ts';
import { insertAccount } from '../../src/store/accounts-store.ts';
import { findMonitorsWithBaselines, type MonitorKey } from '../../src/store/monitors-store.ts';
import { MonitorReadCache } from '../../src/services/monitor-read-cache.ts';
import type { MonitorWithBaselines } from '../../src/services/monitor-reads.ts';
import { insertMonitorRow } from '../helpers/monitor-rows.ts';
import { openTestDatabase, testDatabaseUrl } from '../helpers/test-database.ts';
import { TITLE } from '../helpers/watched-page.ts';

// The embedded store's monitor cache, on a real embedded store (it is not
// used on PostgreSQL, where other processes write too).

const SKIP = testDatabaseUrl ? 'the monitor cache is used on the embedded store only' : false;

let db: Database;
let accountId: string;
before(async () => {
  db = await openTestDatabase();
  accountId = randomUUID();
  const at = new Date();
  await insertAccount(db, { id: accountId, email: `${accountId}@example.com`, plan: 'pro', created_at: at, updated_at: at });
});
after(() => db.close());

const newMonitor = async (): Promise<MonitorKey> => ({
  accountId,
  id: await insertMonitorRow(db, {
    accountId,
    url: `https://shop.example/${randomUUID()}.html`,
    targets: [TITLE],
    nextCheckAt: new Date(),
  }),
});

/** Reads from the store, counting reads; while `hold` is set, a read waits for it after reading. */
function storeReads() {
  const counted = { reads: 0, hold: null as Promise<void> | null };
  const load = async (key: MonitorKey): Promise<MonitorWithBaselines | null> => {
    counted.reads++;
    const [found] = await findMonitorsWithBaselines(db, [key]);
    await counted.hold;
    return found ?? null;
  };
  return { counted, load };
}

test('a monitor read once is answered from memory until it changes', { skip: SKIP }, async () => {
  const { counted, load } = storeReads();
  const cache = new MonitorReadCache(load);
  await cache.start(db);
  try {
    const key = await newMonitor();
    await cache.read(key);
    await cache.read(key);
    assert.equal(counted.reads, 1);
    await db.query("UPDATE monitors SET name = 'changed' WHERE id = $1", [key.id]);
    assert.equal((await cache.read(key))?.monitor.name, 'changed');
    assert.equal(counted.reads, 2);
  } finally {
    await cache.stop();
  }
});

test('a read that was on its way while the monitor changed is answered but not kept', { skip: SKIP }, async () => {
  const { counted, load } = storeReads();
  const cache = new MonitorReadCache(load);
  await cache.start(db);
  try {
    const key = await newMonitor();
    let release!: () => void;
    counted.hold = new Promise((resolve) => (release = resolve));
    const racing = cache.read(key);
    // The read has its row; the change commits (and is announced) before the read is answered.
    await new Promise((resolve) => setTimeout(resolve, 50));
    await db.query("UPDATE monitors SET name = 'changed meanwhile' WHERE id = $1", [key.id]);
    release();
    counted.hold = null;
    assert.equal((await racing)?.monitor.name, null, 'answered as it was read');
    assert.equal((await cache.read(key))?.monitor.name, 'changed meanwhile', 'read again, not the racing answer');
    assert.equal(counted.reads, 2);
  } finally {
    await cache.stop();
  }
});

test('a monitor that is not there is not kept', { skip: SKIP }, async () => {
  const { counted, load } = storeReads();
  const cache = new MonitorReadCache(load);
  await cache.start(db);
  try {
    const key = { accountId, id: randomUUID() };
    assert.equal(await cache.read(key), null);
    assert.equal(await cache.read(key), null);
    assert.equal(counted.reads, 2);
  } finally {
    await cache.stop();
  }
});

test('the cache keeps at most its maximum of monitors, the least recently read dropped first', { skip: SKIP }, async () => {
  const { counted, load } = storeReads();
  const cache = new MonitorReadCache(load, { maxMonitors: 2 });
  await cache.start(db);
  try {
    const [a, b, c] = [await newMonitor(), await newMonitor(), await newMonitor()];
    await cache.read(a);
    await cache.read(b);
    await cache.read(a);
    await cache.read(c);
    assert.equal(cache.size, 2);
    assert.equal(counted.reads, 3);
    await cache.read(a);
    assert.equal(counted.reads, 3, 'a was read more recently than b');
    await cache.read(b);
    assert.equal(counted.reads, 4, 'b was dropped');
  } finally {
    await cache.stop();
  }
});
