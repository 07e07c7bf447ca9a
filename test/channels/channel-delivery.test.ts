import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SteppedEngine } from '../../src/engine/scheduler.ts';
import { bearer, createAccountWithToken, type TestApp } from '../helpers/test-app.ts';
import type { FixtureServer } from '../helpers/fixture-server.ts';
import { watchPage } from '../helpers/watched-page.ts';
import { patchMonitor } from '../helpers/monitor-api.ts';
import { outboxRow } from '../helpers/notification-rows.ts';
import type { ServiceRequest } from '../helpers/service-receivers.ts';
import { monitorWithChannel as monitorWithChannelOf, queuedChannelChange, useChannelWorld } from '../helpers/channel-monitors.ts';

// Monitors' changes, monitor.failing and monitor.recovered reach the chosen
// channels through the outbox, each in its service's format, at the local
// stand-ins PAGEWATCH_CHANNEL_HOST_OVERRIDES points the services' hosts at.

const PUBLIC_URL = 'https://watch.example.org';
let t: TestApp, site: FixtureServer, engine: SteppedEngine;
const { services, smtp } = await useChannelWorld({ PAGEWATCH_PUBLIC_URL: PUBLIC_URL }, (w) => ({ t, site, engine } = w));

const monitorWithChannel = (url: string) => monitorWithChannelOf(t, site, engine, url);
const queuedChange = (url: string) => queuedChannelChange(t, site, engine, url);

/** A price drop, three failed checks and a good one again: the change, monitor.failing and monitor.recovered, each sent. */
async function changeFailRecover(w: Awaited<ReturnType<typeof monitorWithChannel>>): Promise<ServiceRequest[]> {
  await w.page.check({ price: '€24.99' });
  await w.dispatcher.runOnce();
  for (let i = 0; i < 3; i++) await w.page.check({ price: '' });
  await w.dispatcher.runOnce();
  await w.page.check({ price: '€24.99' });
  await w.dispatcher.runOnce();
  assert.equal(services.received.length, 3, JSON.stringify(services.received));
  return services.received;
}

const changeLinkPattern = new RegExp(`^${PUBLIC_URL}/changes/[0-9a-f-]{36}$`);

test('Slack: a change, a failing and a recovered alert are posted to the incoming webhook as blocks with a text fallback', async () => {
  const w = await monitorWithChannel('slack://T0123ABCD/B0456EFGH/slackSecret123');
  const [change, failing, recovered] = await changeFailRecover(w);
  for (const r of [change!, failing!, recovered!]) {
    assert.equal(r.service, 'slack');
    assert.equal(r.method, 'POST');
    assert.equal(r.path, '/services/T0123ABCD/B0456EFGH/slackSecret123');
    assert.equal(r.headers['content-type'], 'application/json');
  }
  const body = change!.body as { text: string; blocks: { type: string; text: { type: string; text: string } }[] };
  assert.match(body.text, /price dropped to 24\.99 EUR on /);
  assert.deepEqual(
    body.blocks.map((b) => [b.type, b.text.type]),
    [
      ['header', 'plain_text'],
      ['section', 'plain_text'],
      ['section', 'mrkdwn'],
    ],
  );
  assert.equal(body.blocks[1]!.text.text, 'Price: 29.00 EUR → 24.99 EUR');
  assert.match(body.blocks[2]!.text.text, /^<https:\/\/watch\.example\.org\/changes\/[0-9a-f-]{36}\|See the change>$/);
  assert.match((failing!.body as { text: string }).text, /checks are failing$/);
  assert.match((recovered!.body as { text: string }).text, /checks work again$/);
});

type Embed = { title: string; description?: string; url: string; color: number };

test('Discord: the alerts are posted to the webhook as one embed each, with no mentions allowed', async () => {
  const w = await monitorWithChannel('discord://112233445566/discordToken_1');
  const [change, failing, recovered] = await changeFailRecover(w);
  for (const r of [change!, failing!, recovered!]) {
    assert.deepEqual([r.service, r.method, r.path], ['discord', 'POST', '/api/webhooks/112233445566/discordToken_1']);
    assert.equal(r.headers['content-type'], 'application/json');
    assert.deepEqual((r.body as { allowed_mentions: unknown }).allowed_mentions, { parse: [] });
  }
  const [embed] = (change!.body as { embeds: Embed[] }).embeds;
  assert.match(embed!.title, /^price dropped to 24\\\.99 EUR on /);
  assert.equal(embed!.description, 'Price: 29\\.00 EUR → 24\\.99 EUR');
  assert.match(embed!.url, changeLinkPattern);
  assert.match((failing!.body as { embeds: Embed[] }).embeds[0]!.title, /checks are failing$/);
  assert.match((recovered!.body as { embeds: Embed[] }).embeds[0]!.title, /checks work again$/);
});

type NtfyMessage = { topic: string; title: string; message: string; priority: number; click: string };

test('ntfy: the alerts are published as JSON naming the topic, with title, priority and click, and the access token', async () => {
  const w = await monitorWithChannel('ntfy://alerts_topic?token=tk_ntfySecret');
  const [change, failing, recovered] = await changeFailRecover(w);
  for (const r of [change!, failing!, recovered!]) {
    assert.deepEqual([r.service, r.method, r.path], ['ntfy', 'POST', '/']);
    assert.equal(r.headers.authorization, 'Bearer tk_ntfySecret');
    assert.equal((r.body as NtfyMessage).topic, 'alerts_topic');
  }
  const body = change!.body as NtfyMessage;
  assert.match(body.title, /^price dropped to 24\.99 EUR on /);
  assert.equal(body.message, 'Price: 29.00 EUR → 24.99 EUR');
  assert.equal(body.priority, 3);
  assert.match(body.click, changeLinkPattern);
  assert.equal((failing!.body as NtfyMessage).priority, 4);
  assert.match((recovered!.body as NtfyMessage).title, /checks work again$/);
});

type TeamsMessage = {
  type: string;
  attachments: {
    contentType: string;
    content: {
      type: string;
      version: string;
      body: { type: string; inlines: { type: string; text: string }[] }[];
      actions: { type: string; url: string }[];
    };
  }[];
};

test('Microsoft Teams: the alerts are posted to the workflow as a message with one Adaptive Card', async () => {
  const w = await monitorWithChannel('workflows://prod-01.westus.logic.azure.com:443/wf0123abcd/teamsSig_9');
  const [change, failing, recovered] = await changeFailRecover(w);
  for (const r of [change!, failing!, recovered!]) {
    assert.deepEqual([r.service, r.method, r.path], ['teams', 'POST', '/workflows/wf0123abcd/triggers/manual/paths/invoke']);
    assert.equal(r.query.get('sig'), 'teamsSig_9');
    assert.equal(r.query.get('api-version'), '2016-06-01');
    assert.equal((r.body as TeamsMessage).type, 'message');
  }
  const [attachment] = (change!.body as TeamsMessage).attachments;
  assert.equal(attachment!.contentType, 'application/vnd.microsoft.card.adaptive');
  assert.equal(attachment!.content.type, 'AdaptiveCard');
  const texts = attachment!.content.body.map((b) => [b.type, b.inlines.map((i) => i.type).join(), b.inlines[0]!.text]);
  assert.match(texts[0]![2]!, /^price dropped to 24\.99 EUR on /);
  assert.deepEqual(texts[1], ['RichTextBlock', 'TextRun', 'Price: 29.00 EUR → 24.99 EUR']);
  assert.equal(attachment!.content.actions[0]!.type, 'Action.OpenUrl');
  assert.match(attachment!.content.actions[0]!.url, changeLinkPattern);
  assert.match((failing!.body as TeamsMessage).attachments[0]!.content.body[0]!.inlines[0]!.text, /checks are failing$/);
  assert.match((recovered!.body as TeamsMessage).attachments[0]!.content.body[0]!.inlines[0]!.text, /checks work again$/);
});

type TelegramMessage = { chat_id: string; text: string; parse_mode: string };

test('Telegram: the alerts are sent with sendMessage to the chat in HTML parse mode', async () => {
  const w = await monitorWithChannel('tgram://123456:AAHtelegramSecret/-100200300');
  const [change, failing, recovered] = await changeFailRecover(w);
  for (const r of [change!, failing!, recovered!]) {
    assert.deepEqual([r.service, r.method, r.path], ['telegram', 'POST', '/bot123456:AAHtelegramSecret/sendMessage']);
    assert.deepEqual([(r.body as TelegramMessage).chat_id, (r.body as TelegramMessage).parse_mode], ['-100200300', 'HTML']);
  }
  const { text } = change!.body as TelegramMessage;
  assert.match(
    text,
    /^<b>price dropped to 24\.99 EUR on [^<]+<\/b>\n<pre>Price: 29\.00 EUR → 24\.99 EUR<\/pre>\n<a href="https:\/\/watch\.example\.org\/changes\/[0-9a-f-]{36}">See the change<\/a>$/,
  );
  assert.match((failing!.body as TelegramMessage).text, /checks are failing<\/b>/);
  assert.match((recovered!.body as TelegramMessage).text, /checks work again<\/b>/);
});

type GotifyMessage = { title: string; message: string; priority: number; extras: Record<string, Record<string, unknown>> };

test('Gotify: the alerts are posted to /message with the app token in X-Gotify-Key, as plain text with a click URL', async () => {
  const w = await monitorWithChannel('gotifys://gotify.example.org/AppTokenSecret1');
  const [change, failing, recovered] = await changeFailRecover(w);
  for (const r of [change!, failing!, recovered!]) {
    assert.deepEqual([r.service, r.method, r.path], ['gotify', 'POST', '/message']);
    assert.equal(r.headers['x-gotify-key'], 'AppTokenSecret1');
  }
  const body = change!.body as GotifyMessage;
  assert.match(body.title, /^price dropped to 24\.99 EUR on /);
  assert.match(body.message, /^Price: 29\.00 EUR → 24\.99 EUR\n\nSee the change: https:\/\/watch\.example\.org\/changes\//);
  assert.equal(body.priority, 5);
  assert.deepEqual(body.extras['client::display'], { contentType: 'text/plain' });
  assert.match(String((body.extras['client::notification']!.click as { url: string }).url), changeLinkPattern);
  assert.equal((failing!.body as GotifyMessage).priority, 8);
  assert.match((recovered!.body as GotifyMessage).title, /checks work again$/);
});

type PushoverMessage = { token: string; user: string; title: string; message: string; url: string; url_title: string; priority: number };

test('Pushover: the alerts are posted to /1/messages.json with the app token and user key, as plain text with the link as url', async () => {
  const user = 'uQiRzpo4DXghDmr9QzzfQu27cmVRsG';
  const token = 'azGDORePK8gMaC0QOYAMyEEuzJnyUi';
  const w = await monitorWithChannel(`pover://${user}@${token}`);
  const [change, failing, recovered] = await changeFailRecover(w);
  for (const r of [change!, failing!, recovered!]) {
    assert.deepEqual([r.service, r.method, r.path], ['pushover', 'POST', '/1/messages.json']);
    assert.deepEqual([(r.body as PushoverMessage).token, (r.body as PushoverMessage).user], [token, user]);
    assert.equal(r.headers['content-type'], 'application/json');
  }
  const body = change!.body as PushoverMessage;
  assert.match(body.title, /^price dropped to 24\.99 EUR on /);
  assert.equal(body.message, 'Price: 29.00 EUR → 24.99 EUR');
  assert.match(body.url, changeLinkPattern);
  assert.deepEqual([body.url_title, body.priority, (failing!.body as PushoverMessage).priority], ['See the change', 0, 1]);
  assert.match((recovered!.body as PushoverMessage).title, /checks work again$/);
});

type GoogleChatMessage = {
  cardsV2: {
    card: {
      header: { title: string };
      sections: {
        widgets: {
          textParagraph?: { text: string };
          buttonList?: { buttons: { text: string; onClick: { openLink: { url: string } } }[] };
        }[];
      }[];
    };
  }[];
};

test('Google Chat: the alerts are posted to the space’s webhook with its key and token, as one card', async () => {
  const w = await monitorWithChannel('gchat://AAAAspace1/keySecret1/tokenSecret1');
  const [change, failing, recovered] = await changeFailRecover(w);
  for (const r of [change!, failing!, recovered!]) {
    assert.deepEqual([r.service, r.method, r.path], ['googlechat', 'POST', '/v1/spaces/AAAAspace1/messages']);
    assert.deepEqual([r.query.get('key'), r.query.get('token')], ['keySecret1', 'tokenSecret1']);
    assert.equal(r.headers['content-type'], 'application/json');
  }
  const { card } = (change!.body as GoogleChatMessage).cardsV2[0]!;
  assert.match(card.header.title, /^price dropped to 24\.99 EUR on /);
  const [text, buttons] = card.sections[0]!.widgets;
  assert.equal(text!.textParagraph!.text, 'Price: 29.00 EUR → 24.99 EUR');
  assert.equal(buttons!.buttonList!.buttons[0]!.text, 'See the change');
  assert.match(buttons!.buttonList!.buttons[0]!.onClick.openLink.url, changeLinkPattern);
  assert.match((failing!.body as GoogleChatMessage).cardsV2[0]!.card.header.title, /checks are failing$/);
  assert.match((recovered!.body as GoogleChatMessage).cardsV2[0]!.card.header.title, /checks work again$/);
});

type MatrixEvent = { msgtype: string; body: string; format: string; formatted_body: string };

test('Matrix: the alerts are PUT as m.room.message events with the access token, a transaction id per alert, the same on a retry', async () => {
  const w = await monitorWithChannel('matrixs://syt_matrixSecret@matrix.example.org/!shopRoom:example.org');
  services.answer({ status: 502 });
  await w.page.check({ price: '€24.99' });
  await w.dispatcher.runOnce();
  t.clock.advance(60_000);
  await w.dispatcher.runOnce();
  for (let i = 0; i < 3; i++) await w.page.check({ price: '' });
  await w.dispatcher.runOnce();
  await w.page.check({ price: '€24.99' });
  await w.dispatcher.runOnce();
  const [refused, change, failing, recovered] = services.received;
  const prefix = '/_matrix/client/v3/rooms/!shopRoom%3Aexample.org/send/m.room.message/';
  for (const r of [refused!, change!, failing!, recovered!]) {
    assert.deepEqual([r.service, r.method], ['matrix', 'PUT']);
    assert.ok(r.path.startsWith(prefix), r.path);
    assert.equal(r.headers.authorization, 'Bearer syt_matrixSecret');
  }
  assert.equal(refused!.path, change!.path, 'a retry is the same transaction');
  assert.notEqual(change!.path, failing!.path);
  const event = change!.body as MatrixEvent;
  assert.deepEqual([event.msgtype, event.format], ['m.text', 'org.matrix.custom.html']);
  assert.match(
    event.body,
    /^price dropped to 24\.99 EUR on .*\nPrice: 29\.00 EUR → 24\.99 EUR\nSee the change: https:\/\/watch\.example\.org\/changes\//,
  );
  assert.match(
    event.formatted_body,
    /^<b>price dropped to 24\.99 EUR on [^<]+<\/b><pre>Price: 29\.00 EUR → 24\.99 EUR<\/pre><a href="https:\/\/watch\.example\.org\/changes\/[0-9a-f-]{36}">See the change<\/a>$/,
  );
  assert.match((failing!.body as MatrixEvent).body, /checks are failing/);
  assert.match((recovered!.body as MatrixEvent).body, /checks work again/);
});

test('Matrix: a room alias is looked up in the homeserver’s directory and the alerts go to the room id it names', async () => {
  const w = await monitorWithChannel('matrixs://syt_matrixSecret@matrix.example.org/#shop:example.org');
  await w.page.check({ price: '€24.99' });
  await w.dispatcher.runOnce();
  const [lookup, sent] = services.received;
  assert.deepEqual(
    [lookup!.service, lookup!.method, lookup!.path],
    ['matrix-directory', 'GET', '/_matrix/client/v3/directory/room/%23shop%3Aexample.org'],
  );
  assert.deepEqual([sent!.service, sent!.method], ['matrix', 'PUT']);
  assert.ok(sent!.path.startsWith('/_matrix/client/v3/rooms/!shopRoom%3Aexample.org/send/m.room.message/'), sent!.path);
  assert.equal(sent!.headers.authorization, 'Bearer syt_matrixSecret');
  assert.match((sent!.body as MatrixEvent).body, /^price dropped to 24\.99 EUR on /);
  assert.equal(services.received.length, 2);
});

test('Matrix: an alias the homeserver does not know fails the message with its M_NOT_FOUND and marks the channel failing', async () => {
  const w = await queuedChange('matrixs://syt_matrixSecret@matrix.example.org/#gone:example.org');
  assert.equal((await w.dispatcher.runOnce())[0]!.outcome, 'failed');
  const row = await outboxRow(t, w.outboxId);
  assert.match(row.last_error ?? '', /^looking up the room alias #gone:example\.org: the service answered 404: .*M_NOT_FOUND/);
  assert.deepEqual(
    services.received.map((r) => r.service),
    ['matrix-directory'],
    'nothing is sent to a room',
  );
  const channel = await t.app.inject({ method: 'GET', url: `/api/v1/channels/${w.channelId}`, headers: bearer(w.token) });
  assert.equal(channel.json().data.state, 'failing');
});

test('a 429 with Retry-After is retried no sooner than the service asked', async () => {
  const w = await queuedChange('slack://T0123ABCD/B0456EFGH/slackSecret123');
  services.answer({ status: 429, headers: { 'retry-after': '600' }, body: 'rate_limited' });
  assert.equal((await w.dispatcher.runOnce())[0]!.outcome, 'retry');
  const row = await outboxRow(t, w.outboxId);
  assert.equal(row.status, 'pending');
  assert.deepEqual(row.next_attempt_at, new Date(t.clock.now().getTime() + 600_000));
  assert.equal(row.last_error, 'the service answered 429: rate_limited');
  t.clock.advance(600_000);
  assert.equal((await w.dispatcher.runOnce())[0]!.outcome, 'delivered');
  assert.equal(services.received.length, 2);
});

test('Telegram’s 429 is retried after the parameters.retry_after its body names', async () => {
  const w = await queuedChange('tgram://123456:AAHtelegramSecret/-100200300');
  const refusal = { ok: false, error_code: 429, description: 'Too Many Requests: retry after 900', parameters: { retry_after: 900 } };
  services.answer({ status: 429, headers: { 'content-type': 'application/json' }, body: JSON.stringify(refusal) });
  await w.dispatcher.runOnce();
  assert.deepEqual((await outboxRow(t, w.outboxId)).next_attempt_at, new Date(t.clock.now().getTime() + 900_000));
});

test('a revoked token (401) fails the message at once, with what the service said, and is not retried', async () => {
  const w = await queuedChange('tgram://123456:AAHtelegramSecret/-100200300');
  services.answer({
    status: 401,
    headers: { 'content-type': 'application/json' },
    body: '{"ok":false,"error_code":401,"description":"Unauthorized"}',
  });
  assert.equal((await w.dispatcher.runOnce())[0]!.outcome, 'failed');
  const row = await outboxRow(t, w.outboxId);
  assert.equal(row.status, 'failed');
  assert.match(row.last_error ?? '', /^the service answered 401: .*Unauthorized/);
});

test('a revoked token marks the channel failing and emails the owner once; its later alerts are skipped, not sent', async () => {
  const w = await queuedChange('tgram://123456:AAHtelegramSecret/-100200300');
  services.answer({
    status: 401,
    headers: { 'content-type': 'application/json' },
    body: '{"ok":false,"error_code":401,"description":"Unauthorized"}',
  });
  await w.dispatcher.runOnce();
  const channel = await t.app.inject({ method: 'GET', url: `/api/v1/channels/${w.channelId}`, headers: bearer(w.token) });
  assert.equal(channel.json().data.state, 'failing');
  await w.dispatcher.runOnce();
  assert.equal(smtp.mails.length, 1);
  assert.match(smtp.mails[0]!.headers.get('subject') ?? '', /^\[pagewatch\] channel team is failing$/);
  assert.match(smtp.mails[0]!.text, /could not deliver an alert: the service answered 401/);

  await w.page.check({ price: '€19.99' });
  const reports = await w.dispatcher.runOnce();
  assert.deepEqual(
    reports.map((r) => [r.channel, r.outcome, r.reason]),
    [['chat', 'skipped', 'channel_failing']],
  );
  assert.equal(services.received.length, 1, 'the service got the first message only');
  await w.dispatcher.runOnce();
  assert.equal(smtp.mails.length, 1, 'one email, not one per refusal');
});

test('a channel whose message keeps failing until its retries run out is marked failing and reported by one email', async () => {
  const w = await queuedChange('slack://T0123ABCD/B0456EFGH/slackSecret123');
  services.answer(...Array.from({ length: 30 }, () => ({ status: 503, body: 'service unavailable' })));
  let row = await outboxRow(t, w.outboxId);
  while (row.status === 'pending') {
    t.clock.advance(Math.max(0, row.next_attempt_at.getTime() - t.clock.now().getTime()));
    await w.dispatcher.runOnce();
    row = await outboxRow(t, w.outboxId);
  }
  assert.equal(row.status, 'failed');
  assert.match(row.last_error ?? '', /^the service answered 503: service unavailable; gave up after \d+ attempts$/);
  assert.ok(services.received.length > 5, `retried with backoff: ${services.received.length} attempts`);
  const channel = await t.app.inject({ method: 'GET', url: `/api/v1/channels/${w.channelId}`, headers: bearer(w.token) });
  assert.equal(channel.json().data.state, 'failing');
  await w.dispatcher.runOnce();
  assert.equal(smtp.mails.length, 1);
  assert.match(smtp.mails[0]!.headers.get('subject') ?? '', /^\[pagewatch\] channel team is failing$/);
  assert.match(
    smtp.mails[0]!.text,
    /could not deliver an alert: the service answered 503: service unavailable; gave up after \d+ attempts/,
  );

  services.reset();
  // A day overdue, the monitor is first given a fresh slot (claim-work's overdue rule), then checked there.
  await engine.runCycle();
  await w.page.check({ price: '€19.99' });
  const reports = await w.dispatcher.runOnce();
  assert.deepEqual(
    reports.map((r) => [r.channel, r.outcome, r.reason]),
    [['chat', 'skipped', 'channel_failing']],
  );
  assert.equal(services.received.length, 0, 'not retried forever: later alerts are not sent');
  assert.equal(smtp.mails.length, 1, 'one email');
});

function testMessage(w: { token: string; channelId: string }) {
  return t.app.inject({
    method: 'POST',
    url: `/api/v1/channels/${w.channelId}/test`,
    headers: { ...bearer(w.token), 'content-type': 'application/json' },
    payload: '{}',
  });
}

test('a test message is sent at once and the answer is what the service said', async () => {
  const w = await monitorWithChannel('tgram://123456:AAHtelegramSecret/-100200300');
  const res = await testMessage(w);
  assert.equal(res.statusCode, 200, res.body);
  assert.deepEqual(res.json().data, {
    delivered: true,
    response_status: 200,
    answer: '{"ok":true,"result":{"message_id":1}}',
    error: null,
  });
  assert.equal(services.received.length, 1);
  assert.match((services.received[0]!.body as TelegramMessage).text, /^<b>pagewatch test message for team<\/b>/);
});

test('a test message the service refuses answers its status and its words', async () => {
  const w = await monitorWithChannel('discord://112233445566/discordToken_1');
  services.answer({ status: 404, headers: { 'content-type': 'application/json' }, body: '{"message": "Unknown Webhook", "code": 10015}' });
  const res = await testMessage(w);
  assert.equal(res.statusCode, 200);
  const data = res.json().data;
  assert.deepEqual([data.delivered, data.response_status, data.answer], [false, 404, '{"message": "Unknown Webhook", "code": 10015}']);
  assert.match(data.error, /^the service answered 404/);
});

test('a failing channel that takes a test message is active again', async () => {
  const w = await queuedChange('slack://T0123ABCD/B0456EFGH/slackSecret123');
  services.answer({ status: 403, body: 'invalid_token' });
  await w.dispatcher.runOnce();
  const state = async () =>
    (await t.app.inject({ method: 'GET', url: `/api/v1/channels/${w.channelId}`, headers: bearer(w.token) })).json().data.state;
  assert.equal(await state(), 'failing');
  assert.equal((await testMessage(w)).json().data.delivered, true);
  assert.equal(await state(), 'active');
});

test('the delivery log lists the channel’s messages newest first with status, attempts, last status and last error', async () => {
  const w = await queuedChange('slack://T0123ABCD/B0456EFGH/slackSecret123');
  services.answer({ status: 429, headers: { 'retry-after': '120' }, body: 'rate_limited' });
  await w.dispatcher.runOnce();
  const log = async () =>
    (await t.app.inject({ method: 'GET', url: `/api/v1/channels/${w.channelId}/deliveries`, headers: bearer(w.token) })).json().data;
  const [waiting] = await log();
  assert.deepEqual(
    [waiting.id, waiting.event, waiting.status, waiting.attempts, waiting.response_status, waiting.last_error],
    [w.outboxId, 'change.detected', 'pending', 1, 429, 'the service answered 429: rate_limited'],
  );
  assert.equal(waiting.last_attempt_at, t.clock.now().toISOString());
  t.clock.advance(120_000);
  await w.dispatcher.runOnce();
  const [delivered] = await log();
  assert.deepEqual([delivered.status, delivered.attempts, delivered.response_status], ['delivered', 2, 200]);
});

test('a monitor may choose only channels of its own account: another’s is 422 validation_failed naming notifications.channels', async () => {
  const w = await monitorWithChannel('discord://1/tok');
  const other = await createAccountWithToken(t.app);
  const res = await patchMonitor(t.app, other.token, w.page.monitorId, {});
  assert.equal(res.statusCode, 404, 'the monitor is not theirs either');
  const own = await watchPage(t, site, engine, { accountId: other.accountId });
  const refused = await patchMonitor(t.app, other.token, own.monitorId, { notifications: { channels: [w.channelId] } });
  assert.equal(refused.statusCode, 422);
  assert.equal(refused.json().error.details[0].field, 'notifications.channels');
});

test('a deleted channel leaves the monitors that chose it, and its queued messages go with it', async () => {
  const w = await queuedChange('discord://1/tok');
  const deleted = await t.app.inject({ method: 'DELETE', url: `/api/v1/channels/${w.channelId}`, headers: bearer(w.token) });
  assert.equal(deleted.statusCode, 204);
  const monitor = await t.app.inject({ method: 'GET', url: `/api/v1/monitors/${w.page.monitorId}`, headers: bearer(w.token) });
  assert.deepEqual(monitor.json().data.notifications.channels, []);
  assert.deepEqual(await t.db.query('SELECT id FROM notification_outbox WHERE id = $1', [w.outboxId]), []);
});
