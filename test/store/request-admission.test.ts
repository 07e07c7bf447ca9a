import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { METRICS } from '../../src/domain/usage-metrics.ts';
import { DEFAULT_PLANS } from '../../src/domain/plans.ts';
import { periodStart } from '../../src/domain/periods.ts';
import { InMemoryRequestCounts } from '../../src/services/request-counts-in-memory.ts';
import { SqlRequestCounts } from '../../src/services/request-counts-in-sql.ts';
import { RequestLimits, type Admission } from '../../src/services/request-limits.ts';
import type { Principal } from '../../src/services/tokens.ts';
import type { Database } from '../../src/store/database.ts';
import { insertAccount } from '../../src/store/accounts-store.ts';
import { readCounters } from '../../src/store/counters-store.ts';
import { ManualClock } from '../helpers/manual-clock.ts';
import { openTestDatabase, testDatabaseUrl } from '../helpers/test-database.ts';

// What an admission costs the store. Both ways of keeping the counts run on
// either store here (the app keeps them in memory on PGlite, in SQL on PostgreSQL).

let db: Database;
before(async () => {
  db = await openTestDatabase();
});
after(() => db.close());

const log = pino({ level: 'silent' });
const clock = new ManualClock('2026-06-01T12:00:00Z');

async function principal(): Promise<Principal> {
  const id = randomUUID();
  const at = clock.now();
  await insertAccount(db, { id, email: `${id}@example.com`, plan: 'pro', created_at: at, updated_at: at });
  return { accountId: id, tokenId: randomUUID(), scopes: [], planName: 'pro', plan: DEFAULT_PLANS.pro };
}

/** The database, counting the statements sent through it. */
function counting(): { db: Database; statements: () => number } {
  let n = 0;
  return {
    db: { ...db, query: (sql, params) => (n++, db.query(sql, params)), transaction: (fn) => (n++, db.transaction(fn)) },
    statements: () => n,
  };
}

async function storedReadBytes(accountId: string): Promise<number> {
  const day = periodStart(METRICS.readBytes, clock.now());
  return (await readCounters(db, accountId, [{ metric: METRICS.readBytes.name, periodStart: day }])).get(METRICS.readBytes.name)!;
}

test('shared counts: an admission is one statement and carries the read bytes served since the previous one', async () => {
  const who = await principal();
  const store = counting();
  const limiter = new RequestLimits(new SqlRequestCounts(store.db, () => clock.now()), { clock }, log);
  try {
    const first = await limiter.admit(who, true);
    assert.equal(store.statements(), 1);
    limiter.chargeReadBytes(who, 500, first.state);
    assert.equal(store.statements(), 1, 'charging waits for the next statement');
    const second = await limiter.admit(who, true);
    assert.equal(store.statements(), 2);
    assert.equal(second.state.readBytesRemaining, DEFAULT_PLANS.pro.read_bytes_per_day - 500);
    assert.equal(await storedReadBytes(who.accountId), 500);
  } finally {
    await limiter.stop();
  }
});

test('shared counts: requests that arrive while an admission is on its way are admitted together, in order, within the limits', async () => {
  const [who, other] = [await principal(), await principal()];
  const store = counting();
  const limiter = new RequestLimits(new SqlRequestCounts(store.db, () => clock.now()), { clock }, log);
  try {
    const minuteLimit = DEFAULT_PLANS.pro.requests_per_minute;
    const requests = Array.from({ length: minuteLimit + 10 }, (_, i) => limiter.admit(i === 5 ? other : who, false));
    const admissions = await Promise.all(requests);
    assert.equal(store.statements(), 2, 'the first request alone, then every request that waited for it');
    const refused = admissions.flatMap((a, i) => (a.rejection ? [i] : []));
    // The other account's request is counted on its own; of `who`'s, the first minuteLimit are.
    assert.deepEqual(
      refused,
      Array.from({ length: 9 }, (_, i) => minuteLimit + 1 + i),
    );
    assert.deepEqual(
      admissions.slice(0, 4).map((a) => a.state.minuteRemaining),
      [minuteLimit - 1, minuteLimit - 2, minuteLimit - 3, minuteLimit - 4],
    );
    assert.equal(admissions[5]!.state.minuteRemaining, minuteLimit - 1);
  } finally {
    await limiter.stop();
  }
});

test('shared counts: a request whose account was deleted meanwhile fails alone, not the requests admitted with it', async () => {
  const [who, gone] = [await principal(), await principal()];
  await db.query('DELETE FROM accounts WHERE id = $1', [gone.accountId]);
  const limiter = new RequestLimits(new SqlRequestCounts(db, () => clock.now()), { clock }, log);
  try {
    // The first request goes alone; the next two wait for it and are grouped.
    const results = await Promise.allSettled([limiter.admit(who, false), limiter.admit(gone, false), limiter.admit(who, false)]);
    assert.deepEqual(
      results.map((r) => r.status),
      ['fulfilled', 'rejected', 'fulfilled'],
    );
    const last = results[2] as PromiseFulfilledResult<Admission>;
    assert.equal(last.value.state.minuteRemaining, DEFAULT_PLANS.pro.requests_per_minute - 2);
  } finally {
    await limiter.stop();
  }
});

test('shared counts: two nodes admitting groups of many accounts at once count each account exactly to its limit', async () => {
  const accounts = await Promise.all(Array.from({ length: 24 }, () => principal()));
  const nodes = [
    new RequestLimits(new SqlRequestCounts(db, () => clock.now()), { clock }, log),
    new RequestLimits(new SqlRequestCounts(db, () => clock.now()), { clock }, log),
  ];
  try {
    const minuteLimit = DEFAULT_PLANS.pro.requests_per_minute;
    // Every account asks minuteLimit + 5 times, its requests spread over both nodes in shuffled order.
    const asks = accounts.flatMap((who) => Array.from({ length: minuteLimit + 5 }, () => who));
    for (let i = asks.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1));
      [asks[i], asks[j]] = [asks[j]!, asks[i]!];
    }
    const admissions = await Promise.all(asks.map((who, i) => nodes[i % 2]!.admit(who, false)));
    for (const who of accounts) {
      const counted = admissions.filter((a, i) => asks[i] === who && !a.rejection).length;
      assert.equal(counted, minuteLimit, `account ${who.accountId}`);
    }
    const windows = await db.query<{ count: number }>('SELECT count FROM rate_windows WHERE account_id = ANY ($1::uuid[])', [
      accounts.map((a) => a.accountId),
    ]);
    assert.deepEqual(
      windows.map((w) => w.count),
      accounts.map(() => minuteLimit),
    );
  } finally {
    await Promise.all(nodes.map((n) => n.stop()));
  }
});

test(
  'shared counts: an account deleted while its group waits for its rows fails alone',
  { skip: testDatabaseUrl ? false : 'needs a second connection (PostgreSQL)' },
  async () => {
    const [who, gone] = [await principal(), await principal()];
    const limiter = new RequestLimits(new SqlRequestCounts(db, () => clock.now()), { clock }, log);
    try {
      await Promise.all([limiter.admit(who, false), limiter.admit(gone, false)]);
      const waiting = db.transaction(async (tx) => {
        await tx.query('SELECT 1 FROM rate_windows WHERE account_id = $1 FOR UPDATE', [gone.accountId]);
        const admissions = Promise.allSettled([limiter.admit(who, false), limiter.admit(gone, false)]);
        // `gone`'s request waits for the row locked here: the account is deleted while it waits.
        while (
          (await db.query("SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%admit_api_requests%'")).length ===
          0
        ) {
          await new Promise((r) => setTimeout(r, 10));
        }
        await tx.query('DELETE FROM accounts WHERE id = $1', [gone.accountId]);
        return { admissions }; // not awaited here: the group waits for this transaction's end
      });
      const results = await (await waiting).admissions;
      assert.deepEqual(
        results.map((r) => r.status),
        ['fulfilled', 'rejected'],
      );
      assert.equal((results[1] as PromiseRejectedResult).reason.code, '23503', "refused by the account's foreign key");
      const kept = results[0] as PromiseFulfilledResult<Admission>;
      assert.equal(kept.value.state.minuteRemaining, DEFAULT_PLANS.pro.requests_per_minute - 2);
    } finally {
      await limiter.stop();
    }
  },
);

test('shared counts: read bytes of an account that makes no further request are written within a second', async () => {
  const who = await principal();
  const limiter = new RequestLimits(new SqlRequestCounts(db, () => clock.now()), { clock }, log);
  try {
    const admission = await limiter.admit(who, true);
    limiter.chargeReadBytes(who, 700, admission.state);
    await new Promise((r) => setTimeout(r, 1200));
    assert.equal(await storedReadBytes(who.accountId), 700);
  } finally {
    await limiter.stop();
  }
});

test('shared counts: the admission commits without waiting for the WAL flush', async () => {
  const who = await principal();
  const day = periodStart(METRICS.apiRequests, clock.now());
  const setting = await db.transaction(async (tx) => {
    await tx.query('SELECT * FROM admit_api_requests($1, $2, $3, $4, $5, 60, $6, $7, $8)', [
      [who.accountId],
      [60],
      [5000],
      [0],
      clock.now(),
      METRICS.apiRequests.name,
      METRICS.readBytes.name,
      day,
    ]);
    return (await tx.query<{ synchronous_commit: string }>('SHOW synchronous_commit'))[0]?.synchronous_commit;
  });
  assert.equal(setting, 'off');
  const outside = (await db.query<{ synchronous_commit: string }>('SHOW synchronous_commit'))[0]?.synchronous_commit;
  assert.equal(outside, 'on', 'for that transaction only');
});

test('embedded counts: once an account is in memory, admissions and charges send no statement until the write-behind', async () => {
  const who = await principal();
  const store = counting();
  const limiter = new RequestLimits(new InMemoryRequestCounts(store.db), { clock }, log);
  try {
    const first = await limiter.admit(who, true);
    const loaded = store.statements();
    limiter.chargeReadBytes(who, 300, first.state);
    for (let i = 0; i < 10; i++) await limiter.admit(who, true);
    assert.equal(store.statements(), loaded);
    await limiter.flush();
    assert.equal(await storedReadBytes(who.accountId), 300);
  } finally {
    await limiter.stop();
  }
});

test('one rule on both stores: the same requests get the same answers whether their counts are kept in memory or in SQL', async () => {
  const limiters = [
    new RequestLimits(new InMemoryRequestCounts(db), { clock }, log),
    new RequestLimits(new SqlRequestCounts(db, () => clock.now()), { clock }, log),
  ];
  const answers = async (limiter: RequestLimits) => {
    const who = await principal();
    const start = clock.now();
    const seen: unknown[] = [];
    for (let i = 0; i < DEFAULT_PLANS.pro.requests_per_minute + 2; i++) {
      const { state, rejection } = await limiter.admit(who, true);
      seen.push({ state, rejection: rejection?.message ?? null, readBytesLeft: limiter.chargeReadBytes(who, 1000, state) });
      clock.advance(100);
    }
    seen.push(await limiter.peek(who));
    clock.set(start);
    return seen;
  };
  try {
    const [inMemory, inSql] = [await answers(limiters[0]!), await answers(limiters[1]!)];
    assert.deepEqual(inMemory, inSql);
  } finally {
    for (const limiter of limiters) await limiter.stop();
  }
});
