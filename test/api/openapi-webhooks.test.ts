import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { verifyWebhook } from '../../packages/client/src/index.ts';
import { admin, createAccountWithToken, type TestApp } from '../helpers/test-app.ts';
import type { WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { useWebhookWorld } from '../helpers/webhook-world.ts';
import { insertNotifiedChange, insertNotifyingMonitor, testDispatcher } from '../helpers/notification-rows.ts';

// The OpenAPI document's `webhooks` describe what receivers really get: a
// delivered event validates against the documented body of its type, with
// every documented header present and the signature verifiable.

let t: TestApp, receiver: WebhookReceiver;
useWebhookWorld({}, (w) => ({ t, receiver } = w));

type WebhookDoc = Record<
  string,
  { post: { parameters: { name: string; in: string }[]; requestBody: { content: { 'application/json': { schema: object } } } } }
>;
const doc = JSON.parse(readFileSync(new URL('../../openapi.json', import.meta.url), 'utf8')) as { webhooks: WebhookDoc };

test('every webhook event is documented with the signed Standard Webhooks headers', () => {
  assert.deepEqual(Object.keys(doc.webhooks).sort(), ['change.detected', 'monitor.failing', 'monitor.recovered']);
  for (const [type, { post }] of Object.entries(doc.webhooks)) {
    assert.deepEqual(
      post.parameters.map((p) => `${p.in} ${p.name}`),
      ['header webhook-id', 'header webhook-timestamp', 'header webhook-signature'],
      type,
    );
  }
});

test('a delivered change.detected event validates against its documented body', async () => {
  const account = await createAccountWithToken(t.app);
  const patched = await admin(t.app, 'PATCH', `/accounts/${account.accountId}`, { webhook_url: `${receiver.url}/doc-hook` });
  const secret = patched.json().data.webhook_secret as string;
  const monitorId = await insertNotifyingMonitor(t, { accountId: account.accountId, name: 'Documented', webhookEnabled: true });
  await insertNotifiedChange(t, { accountId: account.accountId, monitorId, channels: ['webhook'] });
  await testDispatcher(t).runOnce();
  const delivery = receiver.received.find((r) => r.path === '/doc-hook');
  assert.ok(delivery);
  const ajv = new Ajv2020.default({ strict: false });
  addFormats.default(ajv);
  const body = JSON.parse(delivery.body.toString('utf8')) as { type: string };
  const validate = ajv.compile(doc.webhooks[body.type]!.post.requestBody.content['application/json'].schema);
  assert.ok(validate(body), JSON.stringify(validate.errors));
  assert.equal(verifyWebhook(secret, delivery.headers, delivery.body, { now: t.clock.now() }).ok, true);
});
