import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { admin, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { createOwner, signedIn } from '../helpers/dashboard-client.ts';

// The owner's settings page: the account's time zone, which alert emails
// show times in, set by the owner as the operator can.

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

const zoneOf = async (accountId: string) => (await admin(t.app, 'GET', `/accounts/${accountId}`)).json().data.time_zone as string;

test('the navigation links to Settings, where a new account has UTC selected among the IANA zones', async () => {
  const { email } = await createOwner(t.app);
  const client = await signedIn(t.app, email);
  assert.match((await client.get('/')).body, /<a href="\/settings">Settings<\/a>/);
  const page = await client.get('/settings');
  assert.equal(page.statusCode, 200);
  assert.match(page.body, /<a href="\/settings" aria-current="page">Settings<\/a>/);
  assert.match(page.body, /<option value="UTC" selected>UTC<\/option>/);
  assert.match(page.body, /<option value="America\/New_York">America\/New York<\/option>/);
  const zones = /<select id="time-zone"[^]*?<\/select>/.exec(page.body)?.[0] ?? '';
  assert.equal((zones.match(/<option /g) ?? []).length, Intl.supportedValuesOf('timeZone').length + 1, 'every zone, and UTC');
});

test('the owner saves a time zone: the account has it and the page shows it selected', async () => {
  const { accountId, email } = await createOwner(t.app);
  const client = await signedIn(t.app, email);
  await client.get('/settings');
  const saved = await client.post('/settings/time-zone', { time_zone: 'Europe/Berlin' });
  assert.equal(saved.statusCode, 303);
  assert.equal(saved.headers.location, '/settings?notice=time-zone-saved');
  assert.equal(await zoneOf(accountId), 'Europe/Berlin');
  const page = await client.get('/settings?notice=time-zone-saved');
  assert.match(page.body, /<option value="Europe\/Berlin" selected>/);
  assert.match(page.body, /The time zone is saved/);
});

test('a name the time zone database does not know is refused with 422 and the zone is kept', async () => {
  const { accountId, email } = await createOwner(t.app);
  const client = await signedIn(t.app, email);
  await client.get('/settings');
  for (const name of ['Mars/Olympus_Mons', '', 'europe/berlin']) {
    const res = await client.post('/settings/time-zone', { time_zone: name });
    assert.equal(res.statusCode, 422, name);
    assert.match(res.body, /role="alert">Choose a time zone from the list/);
  }
  assert.equal(await zoneOf(accountId), 'UTC');
});

test('saving without the form token is refused (403) and changes nothing', async () => {
  const { accountId, email } = await createOwner(t.app);
  const client = await signedIn(t.app, email);
  const res = await client.post('/settings/time-zone', { time_zone: 'Asia/Tokyo' }, { csrf: null });
  assert.equal(res.statusCode, 403);
  assert.equal(await zoneOf(accountId), 'UTC');
});

test('signed out, the settings page sends one to sign in first', async () => {
  const res = await t.app.inject({ method: 'GET', url: '/settings' });
  assert.equal(res.statusCode, 303);
  assert.match(String(res.headers.location), /^\/sign-in\?notice=signed-in-required&next=%2Fsettings$/);
});

test('the owner chooses a daily digest at an hour: the account has them and the page shows them chosen', async () => {
  const { accountId, email } = await createOwner(t.app);
  const client = await signedIn(t.app, email);
  const page = await client.get('/settings');
  assert.match(page.body, /<input type="radio" id="email-mode-each" name="email_mode" value="each" checked>/);
  const saved = await client.post('/settings/email', { email_mode: 'daily', digest_hour: '7' });
  assert.equal(saved.statusCode, 303);
  assert.equal(saved.headers.location, '/settings?notice=email-mode-saved');
  const account = (await admin(t.app, 'GET', `/accounts/${accountId}`)).json().data;
  assert.deepEqual([account.email_mode, account.digest_hour], ['daily', 7]);
  const again = await client.get('/settings');
  assert.match(again.body, /value="daily" checked>/);
  assert.match(again.body, /<option value="7" selected>07:00<\/option>/);
});

test('an email mode or hour not offered is refused with the page again', async () => {
  const { email } = await createOwner(t.app);
  const client = await signedIn(t.app, email);
  await client.get('/settings');
  const res = await client.post('/settings/email', { email_mode: 'hourly', digest_hour: '7' });
  assert.equal(res.statusCode, 422);
  assert.match(res.body, /Choose how change emails come/);
});
