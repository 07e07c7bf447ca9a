import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { JobTicket } from '../../src/domain/fair-queue.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { buildZip } from '../helpers/zip-builder.ts';
import { createOwner, signedIn } from '../helpers/dashboard-client.ts';

// The Import page reads an upload in the extraction threads, in the account's
// interactive turn (DESIGN §1 Work queues): when the account has as much
// interactive work waiting or running as it may, the form comes back with
// "Busy, try again in N s" and Retry-After, and nothing is imported. The
// threads here block for as many milliseconds as a page says, so the test
// decides who holds the account's one place.

const SLOW_WORKER = new URL('../helpers/slow-extraction-worker.mjs', import.meta.url);

let t: TestApp;
const held: Promise<unknown>[] = [];
before(async () => {
  t = await startTestApp({ loaders: { extractionWorkerUrl: SLOW_WORKER, extractionsPerAccount: 1, extractionBudgetMs: 20_000 } });
});
after(async () => {
  await t.close();
  await Promise.allSettled(held);
});

test('an upload while the account has no room in the extraction queue is the form again, busy with when to try again, and nothing is imported', async () => {
  const { accountId, email } = await createOwner(t.app);
  const client = await signedIn(t.app, email);
  await client.get('/monitors/import');
  const ticket: JobTicket = { account: accountId, lane: 'interactive' };
  held.push(t.loaders.extraction.targets('5000', 'http://x/', [], ticket).catch(() => undefined));
  const watches = { watching: { 'w-1': { url: 'https://shop.example/espresso' } } };
  const res = await client.upload('/monitors/import', {
    field: 'file',
    filename: 'backup.zip',
    content: buildZip([{ name: 'url-watches.json', content: JSON.stringify(watches) }]),
  });
  assert.equal(res.statusCode, 503, res.body.slice(0, 2000));
  assert.equal(res.headers['retry-after'], '20');
  assert.match(res.body, /role="alert">Busy, try again in 20 s: /);
  assert.match(res.body, /enctype="multipart\/form-data"/, 'the form is there to try again');
  const monitors = await t.db.query('SELECT id FROM monitors WHERE account_id = $1', [accountId]);
  assert.equal(monitors.length, 0);
});
