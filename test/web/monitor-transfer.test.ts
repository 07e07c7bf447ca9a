import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.ts';
import { insertMonitorRow } from '../helpers/monitor-rows.ts';
import { serveShop } from '../helpers/shop-page.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { TITLE } from '../helpers/watched-page.ts';
import { buildZip } from '../helpers/zip-builder.ts';
import { createOwner, signedIn, type DashboardClient } from '../helpers/dashboard-client.ts';
import { extractionJobsSent } from '../helpers/extraction-jobs-sent.ts';

// The dashboard's Export action and Import page: the JSON `pagewatch export`
// writes, and the import `pagewatch import` runs, through the dashboard's
// session (previews unspaced here, so no import waits).

let t: TestApp;
let site: FixtureServer;
before(async () => {
  t = await startTestApp({ plans: { pro: { preview_spacing_seconds: 0 } } });
  site = await startFixtureServer();
});
after(async () => {
  await t.close();
  await site.close();
});

let pages = 0;
function page(): string {
  const path = `/import-${++pages}.html`;
  serveShop(site, path);
  return `${site.url}${path}`;
}

async function owner(): Promise<{ client: DashboardClient; accountId: string }> {
  const { accountId, email } = await createOwner(t.app);
  return { client: await signedIn(t.app, email), accountId };
}

/** A monitor of a served page, with a name, labels and status, as the account would have it. */
async function monitorOf(accountId: string, extra: { name?: string; labels?: string[]; status?: string } = {}): Promise<string> {
  const url = page();
  const id = await insertMonitorRow(t.db, {
    accountId,
    url,
    targets: [{ ...TITLE, label: 'title' }],
    intervalMinutes: 30,
    nextCheckAt: t.clock.now(),
  });
  await t.db.query('UPDATE monitors SET name = $2, labels = $3::jsonb, status = $4 WHERE id = $1', [
    id,
    extra.name ?? null,
    JSON.stringify(extra.labels ?? []),
    extra.status ?? 'active',
  ]);
  return url;
}

async function monitorsOf(accountId: string) {
  return t.db.query(
    `SELECT url, name, labels, targets, interval_minutes, status, email_enabled, webhook_enabled, failing_after
       FROM monitors WHERE account_id = $1 ORDER BY url`,
    [accountId],
  );
}

async function upload(client: DashboardClient, filename: string, content: Buffer | string) {
  await client.get('/monitors/import');
  return client.upload('/monitors/import', { field: 'file', filename, content });
}

async function exported(client: DashboardClient): Promise<string> {
  const res = await client.get('/monitors/export');
  assert.equal(res.statusCode, 200, res.body.slice(0, 500));
  return res.body;
}

test('Export downloads the account’s monitors as the JSON `pagewatch export` writes, as an attachment, with no ids or secrets', async () => {
  const { client, accountId } = await owner();
  const url = await monitorOf(accountId, { name: 'Espresso', labels: ['shop'] });
  assert.match((await client.get('/')).body, /<a href="\/monitors\/export" download>Export as JSON<\/a>/);
  const res = await client.get('/monitors/export');
  assert.equal(res.statusCode, 200);
  assert.match(res.headers['content-type'] as string, /^application\/json/);
  assert.match(res.headers['content-disposition'] as string, /^attachment; filename="pagewatch-monitors-\d{4}-\d\d-\d\d\.json"$/);
  const document = res.json();
  assert.equal(document.format, 'pagewatch-monitors');
  assert.equal(document.version, 1);
  assert.deepEqual(document.monitors, [
    {
      url,
      name: 'Espresso',
      labels: ['shop'],
      load_mode: 'html',
      interval_minutes: 30,
      targets: [{ ...TITLE, label: 'title' }],
      schedule: null,
      steps: [],
      proxy: null,
      status: 'active',
      notifications: { email_enabled: false, email_mode: null, webhook_enabled: false, failing_after: 3 },
    },
  ]);
  assert.doesNotMatch(res.body, /"id":\s*"[0-9a-f-]{36}"|channels|account/);
});

test('an export imported on the Import page of another account creates the same monitors, listing each as created', async () => {
  const source = await owner();
  await monitorOf(source.accountId, { name: 'Espresso', labels: ['shop', 'coffee'] });
  await monitorOf(source.accountId, { status: 'paused' });
  const file = await exported(source.client);
  const target = await owner();
  const res = await upload(target.client, 'monitors.json', file);
  assert.equal(res.statusCode, 200, res.body.slice(0, 2000));
  assert.match(res.body, /From <code>monitors\.json<\/code>: 2 monitors to import/);
  assert.equal([...res.body.matchAll(/<li data-kind="created">/g)].length, 2);
  assert.match(res.body, /<strong>2 created<\/strong>, 0 skipped as watched already, 0 not created/);
  assert.deepEqual(await monitorsOf(target.accountId), await monitorsOf(source.accountId));
});

test('importing the same file again creates nothing: a monitor of an address the account watches already is skipped', async () => {
  const source = await owner();
  await monitorOf(source.accountId);
  await monitorOf(source.accountId);
  const file = await exported(source.client);
  const target = await owner();
  await upload(target.client, 'monitors.json', file);
  const again = await upload(target.client, 'monitors.json', file);
  assert.equal(again.statusCode, 200);
  assert.equal([...again.body.matchAll(/<li data-kind="exists">/g)].length, 2);
  assert.match(again.body, /<strong>0 created<\/strong>, 2 skipped as watched already, 0 not created/);
  assert.equal((await monitorsOf(target.accountId)).length, 2);
});

test('an import creates what validates and lists each address that did not, with the reason, and each line of the file that gives no monitor', async () => {
  const { client, accountId } = await owner();
  const good = page();
  const res = await upload(client, 'urls.txt', `${good}\n${site.url}/no-such-page.html\nnot a url\n`);
  assert.match(res.body, /<strong>1 created<\/strong>, 0 skipped as watched already, 1 not created/);
  assert.match(res.body, new RegExp(`<li><span class="url">${site.url}/no-such-page.html</span>: preview refused: 4\\d\\d \\w+: `));
  assert.match(res.body, /<li>line 3: not an http:\/\/ or https:\/\/ URL: not a url<\/li>/);
  assert.deepEqual(
    (await monitorsOf(accountId)).map((m) => m.url),
    [good],
  );
});

test('the Import page carries a schedule over, and lists a monitor whose proxy this install lacks as not created, with the reason', async () => {
  const { client, accountId } = await owner();
  const scheduled = page();
  const proxied = page();
  const schedule = { timezone: 'Europe/Berlin', cron: '0 9 * * 1-5' };
  const monitor = { load_mode: 'html', name: null, labels: [], interval_minutes: 30, targets: [TITLE], status: 'active' };
  const file = JSON.stringify({
    format: 'pagewatch-monitors',
    version: 1,
    exported_at: '2026-11-27T00:00:00Z',
    monitors: [
      { ...monitor, url: scheduled, schedule },
      { ...monitor, url: proxied, proxy: 'office' },
    ],
  });
  const res = await upload(client, 'monitors.json', file);
  assert.match(res.body, /<strong>1 created<\/strong>, 0 skipped as watched already, 1 not created/);
  assert.match(
    res.body,
    new RegExp(`<li><span class="url">${proxied}</span>: preview refused: 422 proxy_unknown: no proxy named office; `),
  );
  const rows = await t.db.query<{ url: string; schedule: unknown }>('SELECT url, schedule FROM monitors WHERE account_id = $1', [
    accountId,
  ]);
  assert.deepEqual(rows, [{ url: scheduled, schedule }]);
});

test('a hostile archive is refused with the reason on the form, and nothing is imported', async () => {
  const { client, accountId } = await owner();
  const bomb = buildZip([{ name: 'url-watches.json', content: Buffer.alloc(30 * 1024 * 1024, 0x20), claimedSize: 10 }]);
  const res = await upload(client, 'backup.zip', bomb);
  assert.equal(res.statusCode, 422);
  assert.match(res.body, /<p class="error" role="alert">backup\.zip cannot be imported: the archive cannot be read: [^<]+<\/p>/);
  assert.match(res.body, /enctype="multipart\/form-data"/, 'the form is there to try another file');
  assert.equal((await monitorsOf(accountId)).length, 0);
});

test('an upload is read in an extraction thread, one job per upload, not on the event loop that serves every request', async () => {
  const { client, accountId } = await owner();
  const url = page();
  const sentBefore = await extractionJobsSent(t, 'importSource');
  const res = await upload(
    client,
    'backup.zip',
    buildZip([{ name: 'url-watches.json', content: JSON.stringify({ watching: { 'w-1': { url } } }) }]),
  );
  assert.equal(res.statusCode, 200, res.body.slice(0, 2000));
  assert.equal(await extractionJobsSent(t, 'importSource'), sentBefore + 1);
  assert.deepEqual(
    (await monitorsOf(accountId)).map((m) => m.url),
    [url],
  );
});

test('a malformed archive read in the extraction thread is refused in the same words as before, and nothing is imported', async () => {
  const { client, accountId } = await owner();
  const damaged = Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.alloc(200, 0x41)]);
  const res = await upload(client, 'backup.zip', damaged);
  assert.equal(res.statusCode, 422);
  assert.match(
    res.body,
    /<p class="error" role="alert">backup\.zip cannot be imported: the archive cannot be read: not a ZIP archive \(no end of central directory\)\.<\/p>/,
  );
  assert.equal((await monitorsOf(accountId)).length, 0);
});

test('a changedetection.io backup’s leftovers are listed under “Not carried over”, every value from the file escaped', async () => {
  const { client, accountId } = await owner();
  const url = page();
  const watches = {
    watching: {
      'w-1': {
        url,
        title: '<b>From changedetection</b>',
        tags: ['t-1'],
        include_filters: ['#title'],
        trigger_text: ['<i>x</i>'],
        notification_urls: ['mailto://me@example.com'],
      },
    },
    settings: { application: { tags: { 't-1': { title: 'moved' } } } },
  };
  const res = await upload(client, '<backup>.zip', buildZip([{ name: 'url-watches.json', content: JSON.stringify(watches) }]));
  assert.equal(res.statusCode, 200, res.body.slice(0, 2000));
  assert.match(res.body, /From <code>&lt;backup&gt;\.zip<\/code>/);
  assert.match(res.body, /<h3>Not carried over<\/h3>/);
  assert.match(res.body, /<li>trigger text \(&quot;&lt;i&gt;x&lt;\/i&gt;&quot;\): not carried over<\/li>/);
  assert.match(res.body, /<li>1 notification URL: add the services as channels/);
  assert.doesNotMatch(res.body, /<i>x<\/i>|<backup>/);
  const [monitor] = await monitorsOf(accountId);
  assert.equal(monitor?.name, '<b>From changedetection</b>');
  assert.deepEqual(monitor?.labels, ['moved']);
});

test('an import without the form’s CSRF token is refused and imports nothing', async () => {
  const { client, accountId } = await owner();
  await client.get('/monitors/import');
  client.csrf = 'not-the-token';
  const res = await client.upload('/monitors/import', { field: 'file', filename: 'urls.txt', content: `${page()}\n` });
  assert.equal(res.statusCode, 403);
  assert.match(res.body, /Form expired/);
  assert.equal((await monitorsOf(accountId)).length, 0);
});

test('an import with no file chosen asks for one', async () => {
  const { client } = await owner();
  const res = await upload(client, '', '');
  assert.equal(res.statusCode, 422);
  assert.match(res.body, /Choose a file to import/);
});

test('two imports of the same file at once create each monitor once: the other import lists it as not created', async () => {
  const source = await owner();
  for (let i = 0; i < 3; i++) await monitorOf(source.accountId);
  const file = await exported(source.client);
  const target = await owner();
  await target.client.get('/monitors/import');
  const [a, b] = await Promise.all([
    target.client.upload('/monitors/import', { field: 'file', filename: 'a.json', content: file }),
    target.client.upload('/monitors/import', { field: 'file', filename: 'b.json', content: file }),
  ]);
  const created = (body: string) => Number(/<strong>(\d+) created<\/strong>/.exec(body)?.[1]);
  assert.equal(created(a.body) + created(b.body), 3, `${a.body}\n${b.body}`);
  assert.equal((await monitorsOf(target.accountId)).length, 3);
});
