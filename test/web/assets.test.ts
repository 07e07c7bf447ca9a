import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { createOwner, signedIn } from '../helpers/dashboard-client.ts';

let t: TestApp;
test.before(async () => {
  t = await startTestApp({ plans: { pro: { preview_spacing_seconds: 1 } } });
});
test.after(() => t.close());

test('/favicon.ico is an icon, not a 404, and every page links it', async () => {
  const icon = await t.app.inject({ method: 'GET', url: '/favicon.ico' });
  assert.equal(icon.statusCode, 200);
  assert.equal(icon.headers['content-type'], 'image/vnd.microsoft.icon');
  assert.deepEqual([...icon.rawPayload.subarray(0, 4)], [0, 0, 1, 0], 'an ICO file header');
  const signIn = await t.app.inject({ method: 'GET', url: '/sign-in' });
  assert.match(signIn.body, /<link rel="icon" href="\/favicon.ico">/);
});

test("the new-monitor page states the preview spacing of the account's plan, not a fixed number", async () => {
  const { email } = await createOwner(t.app);
  const client = await signedIn(t.app, email);
  const page = await client.get('/monitors/new');
  assert.match(page.body, /previews are at least 1 second apart/);
  assert.doesNotMatch(page.body, /35 seconds/);
});
