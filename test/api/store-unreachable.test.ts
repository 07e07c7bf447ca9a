import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { bearer, createAccountWithToken, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { openTestDatabase, testDatabaseUrl } from '../helpers/test-database.ts';
import { startStoreProxy, type StoreProxy } from '../helpers/store-proxy.ts';
import { openPostgresDatabase } from '../../src/store/postgres-database.ts';
import type { Database } from '../../src/store/database.ts';
import { createOwner, signedIn } from '../helpers/dashboard-client.ts';

// A PostgreSQL server that goes away is an outage, not a bug: requests that
// need it are 503 store_unavailable with Retry-After, and /readyz is 503. The
// app reaches its store through a loopback proxy that the test cuts.
const skip = !testDatabaseUrl && 'needs PostgreSQL (TEST_DATABASE_URL): the embedded store runs inside the process';
let t: TestApp;
let migrated: Database;
let proxy: StoreProxy;

before(async () => {
  if (skip) return;
  migrated = await openTestDatabase();
  const [{ schema }] = (await migrated.query<{ schema: string }>('SELECT current_schema() AS schema')) as [{ schema: string }];
  proxy = await startStoreProxy(testDatabaseUrl!);
  t = await startTestApp({ db: await openPostgresDatabase({ connectionString: proxy.url, schema }) });
});
after(async () => {
  if (skip) return;
  await t.close();
  await migrated.close();
});

test(
  'a store that cannot be reached is 503 store_unavailable with Retry-After on the API and the dashboard, and /readyz is 503',
  { skip },
  async () => {
    const { token } = await createAccountWithToken(t.app);
    const owner = await signedIn(t.app, (await createOwner(t.app)).email);
    assert.equal((await t.app.inject({ method: 'GET', url: '/readyz' })).statusCode, 200);

    await proxy.cut();
    const list = await t.app.inject({ method: 'GET', url: '/api/v1/monitors', headers: bearer(token) });
    assert.equal(list.statusCode, 503, list.body);
    assert.equal(list.json().error.code, 'store_unavailable');
    assert.ok(Number(list.headers['retry-after']) > 0);
    assert.equal((await t.app.inject({ method: 'GET', url: '/readyz' })).statusCode, 503);

    const dashboard = await owner.get('/');
    assert.equal(dashboard.statusCode, 503, 'the dashboard maps it as the API does');
    assert.match(dashboard.body, /Temporarily unavailable/);
    assert.ok(Number(dashboard.headers['retry-after']) > 0);
  },
);
