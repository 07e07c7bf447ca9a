import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SteppedEngine } from '../../src/engine/scheduler.ts';
import { bearer, type TestApp } from '../helpers/test-app.ts';
import type { FixtureServer } from '../helpers/fixture-server.ts';
import { outboxRow } from '../helpers/notification-rows.ts';
import { REVOKED_CREDENTIAL_ANSWERS } from '../helpers/service-refusals.ts';
import { queuedChannelChange, useChannelWorld } from '../helpers/channel-monitors.ts';

// Which final failures mark a channel failing: each service's own answer to
// revoked credentials (some say it with a 400), an address the SSRF guard
// refuses; and which do not: a 400 about one message only.

let t: TestApp, site: FixtureServer, engine: SteppedEngine;
const { services, smtp } = await useChannelWorld({}, (w) => ({ t, site, engine } = w));

/** A monitor whose alerts go to one channel made from `url`, with a price drop queued for it, not yet sent. */
async function queuedChange(url: string) {
  const w = await queuedChannelChange(t, site, engine, url);
  const state = async () =>
    (await t.app.inject({ method: 'GET', url: `/api/v1/channels/${w.channelId}`, headers: bearer(w.token) })).json().data.state;
  return { ...w, state };
}

for (const [service, { url, answer }] of Object.entries(REVOKED_CREDENTIAL_ANSWERS)) {
  test(`${service}: its answer to revoked credentials (${answer.status}) marks the channel failing and emails the owner once`, async () => {
    const w = await queuedChange(url);
    services.answer(answer);
    assert.equal((await w.dispatcher.runOnce())[0]!.outcome, 'failed');
    assert.match((await outboxRow(t, w.outboxId)).last_error ?? '', new RegExp(`^the service answered ${answer.status}: `));
    assert.equal(await w.state(), 'failing');
    await w.dispatcher.runOnce();
    assert.equal(smtp.mails.length, 1);
    assert.match(smtp.mails[0]!.headers.get('subject') ?? '', /^\[pagewatch\] channel team is failing$/);
  });
}

test('Telegram: a chat that does not exist (400 chat not found) marks the channel failing', async () => {
  const w = await queuedChange('tgram://123456:AAHtelegramSecret/-100200300');
  services.answer({
    status: 400,
    headers: { 'content-type': 'application/json' },
    body: '{"ok":false,"error_code":400,"description":"Bad Request: chat not found"}',
  });
  assert.equal((await w.dispatcher.runOnce())[0]!.outcome, 'failed');
  assert.equal(await w.state(), 'failing');
});

test('a 400 about one message fails that message only: the channel stays active and nobody is emailed', async () => {
  const w = await queuedChange('slack://T0123ABCD/B0456EFGH/slackSecret123');
  services.answer({ status: 400, body: 'invalid_blocks' });
  assert.equal((await w.dispatcher.runOnce())[0]!.outcome, 'failed');
  assert.equal((await outboxRow(t, w.outboxId)).last_error, 'the service answered 400: invalid_blocks');
  assert.equal(await w.state(), 'active');
  await w.dispatcher.runOnce();
  assert.equal(smtp.mails.length, 0);
});

test('a self-hosted service at an address the SSRF guard refuses gets no request; the channel is marked failing', async () => {
  const w = await queuedChange('gotify://10.20.30.40/AppTokenSecret1');
  assert.equal((await w.dispatcher.runOnce())[0]!.outcome, 'failed');
  assert.match((await outboxRow(t, w.outboxId)).last_error ?? '', /^refused by the SSRF guard: /);
  assert.equal(services.received.length, 0);
  assert.equal(await w.state(), 'failing');
});

test('a test message to an address the SSRF guard refuses is not sent, and the answer says why', async () => {
  const w = await queuedChange('ntfy://192.168.1.20:8080/alerts');
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/v1/channels/${w.channelId}/test`,
    headers: { ...bearer(w.token), 'content-type': 'application/json' },
    payload: '{}',
  });
  assert.equal(res.statusCode, 200, res.body);
  const data = res.json().data;
  assert.deepEqual([data.delivered, data.response_status, data.answer], [false, null, null]);
  assert.match(data.error, /^refused by the SSRF guard: /);
  assert.equal(services.received.length, 0);
});
