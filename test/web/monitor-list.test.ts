import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { insertMonitorRow } from '../helpers/monitor-rows.ts';
import { TITLE } from '../helpers/watched-page.ts';
import { createOwner, signedIn, type DashboardClient } from '../helpers/dashboard-client.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

async function ownerWithMonitors(): Promise<{ client: DashboardClient; ids: Record<string, string> }> {
  const owner = await createOwner(t.app);
  const ids: Record<string, string> = {};
  const rows = [
    { key: 'espresso', url: 'https://shop.example/espresso', name: 'Espresso machine', labels: ['shop', 'kitchen'] },
    { key: 'grinder', url: 'https://shop.example/grinder', name: null, labels: ['shop'] },
    { key: 'policy', url: 'https://bank.example/terms', name: 'Bank terms', labels: ['legal'] },
  ];
  for (const row of rows) {
    ids[row.key] = await insertMonitorRow(t.db, { accountId: owner.accountId, url: row.url, targets: [TITLE], nextCheckAt: t.clock.now() });
    await t.db.query('UPDATE monitors SET name = $2, labels = $3::jsonb WHERE id = $1', [
      ids[row.key],
      row.name,
      JSON.stringify(row.labels),
    ]);
  }
  return { client: await signedIn(t.app, owner.email), ids };
}

const listed = (body: string) => [...body.matchAll(/<td class="url-cell"><a href="\/monitors\/([0-9a-f-]{36})">/g)].map((m) => m[1]);

test('the monitor list searches names and addresses, case-insensitively', async () => {
  const { client, ids } = await ownerWithMonitors();
  assert.deepEqual(listed((await client.get('/?q=ESPRESSO')).body), [ids.espresso]);
  assert.deepEqual(listed((await client.get('/?q=shop.example')).body).sort(), [ids.espresso, ids.grinder].sort());
  const none = await client.get('/?q=nothing-like-this');
  assert.deepEqual(listed(none.body), []);
  assert.match(none.body, /No monitor matches these filters/);
});

test('the monitor list filters by label, and each label links to its filter', async () => {
  const { client, ids } = await ownerWithMonitors();
  const all = await client.get('/');
  assert.match(all.body, /<a class="tag" href="\/\?label=legal">legal<\/a>/);
  assert.deepEqual(listed((await client.get('/?label=shop')).body).sort(), [ids.espresso, ids.grinder].sort());
  assert.deepEqual(listed((await client.get('/?label=legal&q=bank')).body), [ids.policy]);
  assert.match(
    (await client.get('/?label=shop')).body,
    /<input id="label" name="label" value="shop"/,
    'the form shows the filter in force',
  );
});
