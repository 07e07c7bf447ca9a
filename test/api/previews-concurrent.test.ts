import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { bearer, createAccountWithToken, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.ts';

// "Only the 3 most recent previews are kept" also when an account's previews
// arrive at once (on PostgreSQL each may run on its own connection).

let t: TestApp;
let site: FixtureServer;
before(async () => {
  t = await startTestApp({ plans: { pro: { preview_spacing_seconds: 0, previews_per_day: 1000, previews_per_month: 1000 } } });
  site = await startFixtureServer();
});
after(async () => {
  await t.close();
  await site.close();
});

test('previews of one account made at once still leave exactly the three most recent', async () => {
  const { accountId, token } = await createAccountWithToken(t.app);
  const responses = await Promise.all(
    Array.from({ length: 30 }, (_, i) =>
      t.app.inject({
        method: 'POST',
        url: '/api/v1/previews',
        headers: { ...bearer(token), 'content-type': 'application/json' },
        payload: { url: `${site.url}/shop/espresso.html?at-once=${i}`, load_mode: 'html' },
      }),
    ),
  );
  // Past the account's bound on interactive work in the extraction threads the
  // rest are refused (503 busy); the bound still lets more than three through.
  const created = responses.filter((r) => r.statusCode === 201);
  for (const r of responses) if (r.statusCode !== 201) assert.equal(r.json().error.code, 'busy', r.body);
  assert.ok(created.length > 3, `${created.length} previews created`);
  const kept = await t.db.query('SELECT id FROM previews WHERE account_id = $1', [accountId]);
  assert.equal(kept.length, 3);
});

test('JSON previews of one account made at once keep three, each with its own document', async () => {
  const { accountId, token } = await createAccountWithToken(t.app);
  site.route('/api/at-once', (req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ asked: new URL(req.url ?? '/', 'http://x').searchParams.get('n') }));
  });
  const responses = await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      t.app.inject({
        method: 'POST',
        url: '/api/v1/previews',
        headers: { ...bearer(token), 'content-type': 'application/json' },
        payload: { url: `${site.url}/api/at-once?n=${i}`, load_mode: 'html' },
      }),
    ),
  );
  for (const r of responses) if (r.statusCode !== 201) assert.equal(r.json().error.code, 'busy', r.body);
  const kept = await t.db.query<{ url: string; format: string; body: Uint8Array }>(
    'SELECT url, format, body FROM previews WHERE account_id = $1',
    [accountId],
  );
  assert.equal(kept.length, 3);
  for (const row of kept) {
    assert.equal(row.format, 'json');
    assert.deepEqual(JSON.parse(Buffer.from(row.body).toString('utf8')), { asked: new URL(row.url).searchParams.get('n') });
  }
});
