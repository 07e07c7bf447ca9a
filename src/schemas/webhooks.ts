import { Type, type TSchema } from '@sinclair/typebox';
import { ChangeDiffSchema, ChangeSchema } from './changes.ts';
import { Timestamp } from './common.ts';
import { CheckIssueSchema } from './previews.ts';

// The events pagewatch posts to an account's webhook endpoint (Standard
// Webhooks), described in the OpenAPI document's `webhooks` section.

export const WebhookMonitorSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  url: Type.String(),
  name: Type.Union([Type.String(), Type.Null()]),
});

export interface WebhookEvent {
  type: string;
  summary: string;
  description: string;
  data: TSchema;
}

export const WEBHOOK_EVENTS: WebhookEvent[] = [
  {
    type: 'change.detected',
    summary: 'A change matched an alert rule (or its target has no rule)',
    description:
      'One event per change whose rule_matches is non-empty or null, on monitors with notifications.webhook_enabled. ' +
      'data.change is the Change summary of GET /changes; data.diff the diff of its captured texts and data.added_links the new links ' +
      'of a links target.',
    data: Type.Object({
      change: ChangeSchema,
      monitor: WebhookMonitorSchema,
      check_id: Type.Optional(
        Type.String({
          format: 'uuid',
          description: 'the check that found the change: changes of one check share it, so receivers can group them',
        }),
      ),
      diff: ChangeDiffSchema,
      added_links: Type.Array(Type.String(), {
        description: 'links targets: the URLs in after.value that were not in before.value; [] for other kinds',
      }),
    }),
  },
  {
    type: 'monitor.failing',
    summary: "A monitor's checks have failed notifications.failing_after times in a row",
    description:
      'Sent once when the monitor becomes failing: a check fails when the page does not load or a target cannot be read (e.g. ' +
      'selector_missing); checks skipped for a site backoff or an exhausted allowance do not count. Nothing more is sent until it recovers.',
    data: Type.Object({
      monitor: WebhookMonitorSchema,
      failing_since: Timestamp,
      consecutive_failures: Type.Integer(),
      issues: Type.Array(CheckIssueSchema, { description: 'the issues of the check that made it failing' }),
    }),
  },
  {
    type: 'monitor.recovered',
    summary: 'A failing monitor checked successfully again',
    description: 'Sent once, on the first successful check after monitor.failing.',
    data: Type.Object({ monitor: WebhookMonitorSchema, failing_since: Timestamp, recovered_at: Timestamp }),
  },
];

/** The signed headers of every delivery. */
export const WEBHOOK_HEADERS = [
  { name: 'webhook-id', description: 'the delivery id; the same on every retry of the delivery, so receivers can drop duplicates' },
  { name: 'webhook-timestamp', description: 'Unix seconds of this attempt; refuse deliveries far from your clock (e.g. 5 minutes)' },
  {
    name: 'webhook-signature',
    description:
      'v1,<base64 HMAC-SHA256> keyed with the base64-decoded part of the account\'s secret after "whsec_", over ' +
      '"<webhook-id>.<webhook-timestamp>.<body bytes>"; several space-separated signatures may be sent',
  },
];

export function webhookEnvelope(event: WebhookEvent): TSchema {
  return Type.Object({ type: Type.Literal(event.type), timestamp: Timestamp, data: event.data });
}
