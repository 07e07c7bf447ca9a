import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.ts';
import { serveShop } from '../helpers/shop-page.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { buildZip } from '../helpers/zip-builder.ts';
import { createOwner, signedIn } from '../helpers/dashboard-client.ts';

// The Import page reads an upload in the extraction threads within the job
// budget: a file whose reading runs past it is refused on the form, like any
// file that cannot be imported. The budget here (10 ms) is far below what
// inflating and parsing the archive's 20 MB of JSON takes on any machine.

let t: TestApp;
let site: FixtureServer;
before(async () => {
  t = await startTestApp({ plans: { pro: { preview_spacing_seconds: 0 } }, loaders: { extractionBudgetMs: 10 } });
  site = await startFixtureServer();
});
after(async () => {
  await t.close();
  await site.close();
});

/** A changedetection.io backup of one watch whose url-watches.json carries ~20 MB of history beside it. */
function heavyBackup(url: string): Buffer {
  const history = `[${'0,'.repeat(9_900_000)}0]`;
  const watches = `{"watching":{"w-1":{"url":${JSON.stringify(url)}}},"settings":{"history":${history}}}`;
  return buildZip([{ name: 'url-watches.json', content: watches }]);
}

test('an upload whose reading runs past the extraction budget is refused on the form as taking too long to read, and nothing is imported', async () => {
  const { accountId, email } = await createOwner(t.app);
  const client = await signedIn(t.app, email);
  serveShop(site, '/watched.html');
  await client.get('/monitors/import');
  const res = await client.upload('/monitors/import', {
    field: 'file',
    filename: 'backup.zip',
    content: heavyBackup(`${site.url}/watched.html`),
  });
  assert.equal(res.statusCode, 422, res.body.slice(0, 2000));
  assert.match(res.body, /<p class="error" role="alert">backup\.zip cannot be imported: it took longer than 0\.01 s to read\.<\/p>/);
  assert.match(res.body, /enctype="multipart\/form-data"/, 'the form is there to try another file');
  const monitors = await t.db.query('SELECT id FROM monitors WHERE account_id = $1', [accountId]);
  assert.equal(monitors.length, 0);
});
