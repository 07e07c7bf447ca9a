import { Type } from '@sinclair/typebox';
import { NullableTimestamp, Timestamp } from './common.ts';
import { CHANNEL_TYPES } from '../domain/channel-urls.ts';

// Notification channels (DESIGN §8 Channels): made from an Apprise-style URL, shown with its secrets masked.

export const CreateChannelBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100 }),
    url: Type.String({
      minLength: 1,
      maxLength: 2000,
      description:
        'an Apprise-style URL: slack://, discord://, ntfy:// or ntfys://, workflows:// (Microsoft Teams), tgram://, gotify:// or gotifys://, pover://, gchat://, matrix:// or matrixs://',
    }),
  },
  { additionalProperties: false },
);

export const ChannelSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  type: Type.Union(CHANNEL_TYPES.map((t) => Type.Literal(t))),
  url: Type.String({ description: 'the URL with its secret parts masked (slack://T…/B…/***)' }),
  state: Type.Union([Type.Literal('active'), Type.Literal('failing')], {
    description: 'failing: the service refused the channel for good (e.g. a revoked token)',
  }),
  created_at: Timestamp,
});

export const ChannelParams = Type.Object({ channel_id: Type.String({ format: 'uuid' }) });

export const ChannelDeliverySchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  event: Type.String({ description: 'change.detected, monitor.failing or monitor.recovered' }),
  created_at: Timestamp,
  status: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed'), Type.Literal('skipped')]),
  attempts: Type.Integer(),
  last_attempt_at: NullableTimestamp,
  response_status: Type.Union([Type.Integer(), Type.Null()], { description: "the service's HTTP status at the last attempt" }),
  last_error: Type.Union([Type.String(), Type.Null()]),
  skipped_reason: Type.Union([Type.String(), Type.Null()]),
});

export const ChannelTestSchema = Type.Object({
  delivered: Type.Boolean(),
  response_status: Type.Union([Type.Integer(), Type.Null()], { description: 'null when the service could not be reached' }),
  answer: Type.Union([Type.String(), Type.Null()], { description: "the service's answer body (up to 64 KiB)" }),
  error: Type.Union([Type.String(), Type.Null()]),
});
