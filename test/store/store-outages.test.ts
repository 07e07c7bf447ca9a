import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type AddressInfo } from 'node:net';
import pg from 'pg';
import { storeOutage } from '../../src/store/store-errors.ts';
import { testDatabaseUrl } from '../helpers/test-database.ts';

// What the drivers throw when the store goes away, told apart from bugs. The
// errors are the drivers' own, produced for real; a full disk is produced in
// test/api/full-disk.test.ts.

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => assert.fail('expected a failure'),
    (err: unknown) => err,
  );
}

test('a refused connection is store_unavailable', async () => {
  const client = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${await closedPort()}/test` });
  const err = await rejection(client.connect());
  assert.equal(storeOutage(err)?.code, 'store_unavailable');
});

test(
  'a connection the administrator terminates (57P01) is store_unavailable',
  { skip: !testDatabaseUrl && 'needs PostgreSQL (TEST_DATABASE_URL)' },
  async () => {
    const victim = new pg.Client({ connectionString: testDatabaseUrl!, application_name: `pagewatch outage ${process.pid}` });
    const operator = new pg.Client({ connectionString: testDatabaseUrl! });
    victim.on('error', () => undefined);
    await Promise.all([victim.connect(), operator.connect()]);
    try {
      const [{ pid }] = (await victim.query('SELECT pg_backend_pid() AS pid')).rows as [{ pid: number }];
      const running = rejection(victim.query('SELECT pg_sleep(60)'));
      const deadline = Date.now() + 10_000;
      while ((await operator.query("SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND state = 'active'", [pid])).rowCount === 0) {
        assert.ok(Date.now() < deadline, 'the query never started');
      }
      await operator.query('SELECT pg_terminate_backend($1)', [pid]);
      const err = await running;
      assert.equal((err as { code?: string }).code, '57P01');
      assert.equal(storeOutage(err)?.code, 'store_unavailable');
      assert.equal(storeOutage(await rejection(victim.query('SELECT 1')))?.code, 'store_unavailable', 'the dead connection afterwards');
    } finally {
      await Promise.all([victim.end().catch(() => undefined), operator.end()]);
    }
  },
);

test('a programming error is no outage', () => {
  assert.equal(storeOutage(new TypeError("Cannot read properties of undefined (reading 'id')")), null);
  assert.equal(storeOutage(Object.assign(new Error('duplicate key value violates unique constraint'), { code: '23505' })), null);
});
