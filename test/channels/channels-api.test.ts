import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { bearer, createAccountWithToken, startTestApp, type TestApp } from '../helpers/test-app.ts';

const CHANNEL_LIMIT = 3;
let t: TestApp;
before(async () => {
  t = await startTestApp({ plans: { pro: { channels: CHANNEL_LIMIT } } });
});
after(async () => {
  await t.close();
});

const CHANNEL_SCOPES = ['channels:read', 'channels:write'];
const SLACK = 'slack://T0123ABCD/B0456EFGH/abcdefSECRETxyz';

function call(token: string, method: 'GET' | 'POST' | 'DELETE', url: string, body?: unknown) {
  return t.app.inject({
    method,
    url: `/api/v1${url}`,
    headers: { ...bearer(token), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
}

async function createChannel(token: string, url: string, name = 'team') {
  const res = await call(token, 'POST', '/channels', { name, url });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().data as { id: string; name: string; type: string; url: string; state: string; created_at: string };
}

test('a channel is made from an Apprise URL and shown with its secret parts masked', async () => {
  const { token } = await createAccountWithToken(t.app, { scopes: CHANNEL_SCOPES });
  const channel = await createChannel(token, SLACK);
  assert.equal(channel.type, 'slack');
  assert.equal(channel.state, 'active');
  assert.equal(channel.url, 'slack://T012…/B045…/***');
});

test('each service’s URL form is accepted and its secret never shown', async () => {
  const { token } = await createAccountWithToken(t.app, { scopes: CHANNEL_SCOPES });
  const cases: [string, string, string, string][] = [
    ['discord://112233445566/tokenSECRET_abc-def', 'discord', 'discord://112233445566/***', 'tokenSECRET'],
    ['ntfys://alice:pwSECRET@ntfy.example.org/alerts-topic', 'ntfy', 'ntfys://alice:***@ntfy.example.org/aler…', 'pwSECRET'],
    [
      'workflows://prod-01.westus.logic.azure.com:443/abc123def/sigSECRET',
      'teams',
      'workflows://prod-01.westus.logic.azure.com:443/abc123def/***',
      'sigSECRET',
    ],
  ];
  for (const [url, type, masked, secret] of cases) {
    const channel = await createChannel(token, url);
    assert.deepEqual([channel.type, channel.url], [type, masked]);
    assert.ok(!JSON.stringify(channel).includes(secret));
  }
});

test('Gotify and Pushover URLs are accepted with their tokens masked', async () => {
  const { token } = await createAccountWithToken(t.app, { scopes: CHANNEL_SCOPES });
  const gotify = await createChannel(token, 'gotifys://push.example.org:8443/AppTokenSecret1');
  assert.deepEqual([gotify.type, gotify.url], ['gotify', 'gotifys://push.example.org:8443/***']);
  const pushover = await createChannel(token, 'pover://uQiRzpo4DXghDmr9QzzfQu27cmVRsG@azGDORePK8gMaC0QOYAMyEEuzJnyUi');
  assert.deepEqual([pushover.type, pushover.url], ['pushover', 'pover://uQiR…@***']);
});

test('a Google Chat webhook URL is accepted with its key and token masked', async () => {
  const { token } = await createAccountWithToken(t.app, { scopes: CHANNEL_SCOPES });
  const channel = await createChannel(token, 'gchat://AAAAspace1/keySecret1/tokenSecret1');
  assert.deepEqual([channel.type, channel.url], ['googlechat', 'gchat://AAAAspace1/***/***']);
});

test('a Matrix URL is accepted with its access token masked', async () => {
  const { token } = await createAccountWithToken(t.app, { scopes: CHANNEL_SCOPES });
  const channel = await createChannel(token, 'matrixs://syt_matrixSecret@matrix.example.org/!shopRoom:example.org');
  assert.deepEqual([channel.type, channel.url], ['matrix', 'matrixs://***@matrix.example.org/!shopRoom:example.org']);
});

test('a Matrix room alias is accepted as Apprise writes it: #room:server, %23room:server, or #room on the homeserver', async () => {
  const { token } = await createAccountWithToken(t.app, { scopes: CHANNEL_SCOPES });
  const cases: [string, string][] = [
    ['matrixs://syt_aliasSecret@matrix.example.org/#shop:example.org', 'matrixs://***@matrix.example.org/#shop:example.org'],
    ['matrixs://syt_aliasSecret@matrix.example.org/%23shop:example.org', 'matrixs://***@matrix.example.org/#shop:example.org'],
    ['matrix://syt_aliasSecret@matrix.example.org:8008/#shop', 'matrix://***@matrix.example.org:8008/#shop:matrix.example.org'],
  ];
  for (const [url, masked] of cases) {
    const channel = await createChannel(token, url);
    assert.deepEqual([channel.type, channel.url], ['matrix', masked]);
  }
  const refused = await call(token, 'POST', '/channels', { name: 'x', url: 'matrixs://syt_aliasSecret@matrix.example.org/#shop/x' });
  assert.equal(refused.statusCode, 422);
  assert.match(refused.json().error.details[0].message, /#RoomAlias:server/);
});

test('a Telegram bot URL is accepted with the bot token masked', async () => {
  const { token } = await createAccountWithToken(t.app, { scopes: CHANNEL_SCOPES });
  const channel = await createChannel(token, 'tgram://123456:AAHsecretTOKEN/-100200300');
  assert.deepEqual([channel.type, channel.url], ['telegram', 'tgram://123456:***/-100200300']);
});

test('a URL of no known service, or of a known one in the wrong form, is 422 validation_failed naming url', async () => {
  const { token } = await createAccountWithToken(t.app, { scopes: CHANNEL_SCOPES });
  for (const url of ['mailto://someone@example.com', 'slack://onlyone', 'discord://notanumber/x', 'not a url']) {
    const res = await call(token, 'POST', '/channels', { name: 'x', url });
    assert.equal(res.statusCode, 422, url);
    assert.equal(res.json().error.code, 'validation_failed');
    assert.equal(res.json().error.details[0].field, 'url');
  }
});

test('the list, the read and the delete see only the account’s own channels, secrets masked', async () => {
  const mine = await createAccountWithToken(t.app, { scopes: CHANNEL_SCOPES });
  const theirs = await createAccountWithToken(t.app, { scopes: CHANNEL_SCOPES });
  const first = await createChannel(mine.token, SLACK, 'first');
  t.clock.advance(1000);
  const second = await createChannel(mine.token, 'discord://1/tok', 'second');
  const other = await createChannel(theirs.token, SLACK);

  const list = await call(mine.token, 'GET', '/channels');
  assert.deepEqual(
    list.json().data.map((c: { id: string }) => c.id),
    [second.id, first.id],
  );
  assert.ok(!list.body.includes('abcdefSECRETxyz'));
  assert.deepEqual((await call(mine.token, 'GET', `/channels/${first.id}`)).json().data, first);
  assert.equal((await call(mine.token, 'GET', `/channels/${other.id}`)).statusCode, 404);
  assert.equal((await call(mine.token, 'DELETE', `/channels/${other.id}`)).statusCode, 404);

  assert.equal((await call(mine.token, 'DELETE', `/channels/${first.id}`)).statusCode, 204);
  assert.equal((await call(mine.token, 'GET', `/channels/${first.id}`)).statusCode, 404);
  assert.equal((await call(mine.token, 'DELETE', `/channels/${first.id}`)).statusCode, 404);
});

test('at most the plan’s channels per account: past it 409 allowance_exhausted, and a delete makes room', async () => {
  const { token } = await createAccountWithToken(t.app, { scopes: CHANNEL_SCOPES });
  const made = [];
  for (let i = 0; i < CHANNEL_LIMIT; i++) made.push(await createChannel(token, SLACK, `c${i}`));
  const refused = await call(token, 'POST', '/channels', { name: 'one more', url: SLACK });
  assert.equal(refused.statusCode, 409);
  assert.equal(refused.json().error.code, 'allowance_exhausted');
  assert.equal((await call(token, 'DELETE', `/channels/${made[0]!.id}`)).statusCode, 204);
  await createChannel(token, SLACK, 'room again');
});

test('channels need channels:write to be made and deleted and channels:read to be listed', async () => {
  const { token } = await createAccountWithToken(t.app, { scopes: ['channels:read'] });
  const res = await call(token, 'POST', '/channels', { name: 'x', url: SLACK });
  assert.equal(res.statusCode, 403);
  assert.equal(res.json().error.code, 'insufficient_scope');
  const writer = await createAccountWithToken(t.app, { scopes: ['channels:write'] });
  assert.equal((await call(writer.token, 'GET', '/channels')).statusCode, 403);
});
