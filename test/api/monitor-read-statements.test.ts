import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/http/app.ts';
import { loadConfig } from '../../src/config.ts';
import { createLoaders } from '../../src/fetch/loaders.ts';
import { createMetrics } from '../../src/process-metrics.ts';
import { targetFingerprint } from '../../src/domain/target-fingerprint.ts';
import type { Database } from '../../src/store/database.ts';
import { writeBaselines } from '../../src/store/baselines-store.ts';
import { insertMonitor } from '../../src/store/monitors-store.ts';
import { bearer, createAccountWithToken } from '../helpers/test-app.ts';
import { ADMIN_TOKEN } from '../helpers/test-credentials.ts';
import { ManualClock } from '../helpers/manual-clock.ts';
import { openTestDatabase } from '../helpers/test-database.ts';
import { TITLE } from '../helpers/watched-page.ts';

// GET /api/v1/monitors/{id} is the API's hot read. With the token cached it
// costs the store one statement, the monitor with its baselines; on PostgreSQL
// one more, the admission (request limits are counted in memory on PGlite).
// Reads that arrive together share one statement.

let db: Database;
let statements = 0;
/** statements that read monitors for GET /monitors/{id} */
let monitorReads = 0;
before(async () => {
  db = await openTestDatabase();
});
after(() => db.close());

/**
 * The embedded store's write-behind of request counts: a transaction of rate
 * windows and usage counters on its own one-second timer, part of no request
 * (on a busy machine it can fall inside one).
 */
const writesCountsBehind = (sqls: string[]) =>
  sqls.length > 0 && sqls.every((sql) => /INSERT INTO (rate_windows|usage_counters)\b/.test(sql));

/** The store, counting the statements sent through it (a transaction is one), the write-behind of counts left out. */
function counting(): Database {
  return {
    ...db,
    query: (sql, params) => {
      statements++;
      if (sql.includes('key_position')) monitorReads++;
      return db.query(sql, params);
    },
    transaction: (fn) =>
      db.transaction(async (tx) => {
        const sqls: string[] = [];
        const result = await fn({ query: (sql, params) => (sqls.push(sql), tx.query(sql, params)), exec: (sql) => tx.exec(sql) });
        if (!writesCountsBehind(sqls)) statements++;
        return result;
      }),
  };
}

/** Runs `use` against the real app on the counting store, and closes it. */
async function withCountingApp(use: (app: FastifyInstance, clock: ManualClock) => Promise<void>): Promise<void> {
  const config = loadConfig({ PAGEWATCH_ADMIN_TOKEN: ADMIN_TOKEN, LOG_LEVEL: 'silent' });
  const clock = new ManualClock();
  const loaders = createLoaders(config);
  const app = await buildApp({ config, db: counting(), clock, loaders, metrics: createMetrics() });
  try {
    await use(app, clock);
  } finally {
    await app.close();
    await loaders.close();
  }
}

async function newMonitor(accountId: string, at: Date): Promise<string> {
  const id = randomUUID();
  await insertMonitor(db, {
    id,
    account_id: accountId,
    url: `https://shop.example/${id}.html`,
    load_mode: 'html',
    proxy: null,
    status: 'active',
    name: null,
    labels: [],
    interval_minutes: 60,
    schedule: null,
    targets: [TITLE],
    steps: [],
    email_enabled: false,
    email_mode: null,
    channel_ids: [],
    webhook_enabled: false,
    failing_after: 3,
    created_at: at,
    updated_at: at,
    next_check_at: at,
  });
  return id;
}

test('a repeated GET /monitors/{id} is one statement with its observations, plus the admission on PostgreSQL', async () => {
  await withCountingApp(async (app, clock) => {
    const { accountId, token } = await createAccountWithToken(app);
    const at = clock.now();
    const id = await newMonitor(accountId, at);
    await writeBaselines(db, [
      {
        monitor_id: id,
        target_id: TITLE.id,
        fingerprint: targetFingerprint(TITLE, 'html'),
        value: 'Espresso Duo',
        display: 'Espresso Duo',
        text_hash: null,
        seen_links: [],
        updated_at: at,
        pending_value: null,
        pending_since: null,
      },
    ]);
    const read = () => app.inject({ method: 'GET', url: `/api/v1/monitors/${id}`, headers: bearer(token) });
    assert.equal((await read()).statusCode, 200, 'the first request fills the caches');

    const before = statements;
    const res = await read();
    assert.equal(res.statusCode, 200);
    assert.equal(statements - before, db.kind === 'pglite' ? 1 : 2);
    assert.deepEqual(res.json().data.observations, [
      { target_id: 'title', value: 'Espresso Duo', display: 'Espresso Duo', since: at.toISOString(), issues: [] },
    ]);
  });
});

test("GET /monitors/{id} requests that arrive together are read in one statement, each answered with its own monitor and never another account's", async () => {
  await withCountingApp(async (app, clock) => {
    const callers: { token: string; id: string }[] = [];
    for (let i = 0; i < 8; i++) {
      const { accountId, token } = await createAccountWithToken(app);
      callers.push({ token, id: await newMonitor(accountId, clock.now()) });
    }
    const read = (token: string, id: string) => app.inject({ method: 'GET', url: `/api/v1/monitors/${id}`, headers: bearer(token) });
    for (const { token, id } of callers) assert.equal((await read(token, id)).statusCode, 200, 'the first requests fill the caches');

    monitorReads = 0;
    // Each caller asks for its own monitor and for the next caller's, all at once.
    const burst = callers.flatMap(({ token, id }, i) => [read(token, id), read(token, callers[(i + 1) % callers.length]!.id)]);
    const answers = await Promise.all(burst);
    callers.forEach(({ id }, i) => {
      const own = answers[2 * i]!;
      assert.equal(own.statusCode, 200);
      assert.equal(own.json().data.id, id);
      assert.equal(answers[2 * i + 1]!.statusCode, 404, "another account's monitor is not found");
    });
    assert.ok(monitorReads < burst.length / 2, `${burst.length} reads in ${monitorReads} statements`);
  });
});
