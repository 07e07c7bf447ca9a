import { Type } from '@sinclair/typebox';
import { Timestamp } from './common.ts';
import { CHANNEL_TYPES } from '../domain/channel-urls.ts';

// Notification channels (DESIGN §8 Channels): made from an Apprise-style URL, shown with its secrets masked.

export const CreateChannelBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100 }),
    url: Type.String({
      minLength: 1,
      maxLength: 2000,
      description: 'an Apprise-style URL: slack://, discord://, ntfy:// or ntfys://, workflows:// (Microsoft Teams), tgram://',
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
